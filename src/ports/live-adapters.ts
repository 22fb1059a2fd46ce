import type {
  AdapterFactory,
  AdapterOptions,
  LiveProviderAdapter,
  ProviderCredentials,
} from './live-provider.js';
import { createPaystackAdapter } from './paystack/adapter.js';
import { createStripeAdapter } from './stripe/adapter.js';

/** The providers this server has real adapters for, by the name settings and mandates use. */
const FACTORIES: Readonly<Record<string, AdapterFactory>> = {
  paystack: createPaystackAdapter,
  stripe: createStripeAdapter,
};

/** The adapter of `provider` with a workspace's credentials; null for a provider without a real adapter. */
export function liveAdapterOf(
  provider: string,
  credentials: ProviderCredentials,
  options: AdapterOptions = {},
): LiveProviderAdapter | null {
  const factory = Object.hasOwn(FACTORIES, provider) ? FACTORIES[provider] : undefined;
  return factory ? factory(credentials, options) : null;
}
