/** The seed's rails as a setting names them: which provider serves checkout links, virtual accounts, debits. */
export const RAILS = ['checkout', 'virtual_account', 'debit'] as const;
export type Rail = (typeof RAILS)[number];

interface LiveProviderFacts {
  rails: readonly Rail[];
  /** Stripe signs its webhooks with an endpoint secret of its own; Paystack with the secret key. */
  webhookSecret: 'required' | 'none';
  /** What a secret key of each mode starts with, as the provider hands them out. */
  keyPrefixes: { test: readonly string[]; live: readonly string[] };
}

/** Providers this server has a real adapter for; any other name keeps the simulator (test) or fails (live). */
export const LIVE_PROVIDERS: Readonly<Record<string, LiveProviderFacts>> = {
  paystack: {
    rails: ['checkout', 'virtual_account', 'debit'],
    webhookSecret: 'none',
    keyPrefixes: { test: ['sk_test_'], live: ['sk_live_'] },
  },
  stripe: {
    rails: ['checkout', 'debit'],
    webhookSecret: 'required',
    keyPrefixes: { test: ['sk_test_', 'rk_test_'], live: ['sk_live_', 'rk_live_'] },
  },
};

export function liveProviderFacts(provider: string): LiveProviderFacts | undefined {
  return Object.hasOwn(LIVE_PROVIDERS, provider) ? LIVE_PROVIDERS[provider] : undefined;
}

export function railsOf(stored: string): Rail[] {
  return stored.split(',').filter((rail): rail is Rail => (RAILS as readonly string[]).includes(rail));
}
