import type { AppContext } from '../../context.js';
import type { DbOrTrx } from '../../db/schema.js';
import { AppError, fieldError } from '../../lib/app-error.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import type { LiveProviderAdapter, ProviderCallError } from '../../ports/live-provider.js';
import { liveProviderFacts, type Rail, railsOf } from './live-providers.js';
import { findSetting, providerDisplayName } from './providers.service.js';
import type { ProviderSettingsTable } from './providers.table.js';

/** A provider with a real adapter and this workspace's key for the tenant's mode: its sandbox in test mode. */
export interface LiveProvider {
  name: string;
  /** Null for test mode's simulator of the provider (no sandbox key given). */
  setting: ProviderSettingsTable | null;
  adapter: LiveProviderAdapter;
}

function apiUrlOf(ctx: AppContext, provider: string): string {
  return provider === 'stripe' ? ctx.config.stripeApiUrl : ctx.config.paystackApiUrl;
}

/** The adapter a setting's key opens; null when the setting has no key or its provider no adapter. */
export function adapterOfSetting(
  ctx: AppContext,
  setting: ProviderSettingsTable,
): LiveProviderAdapter | null {
  if (setting.secret_key === null || !liveProviderFacts(setting.provider)) return null;
  return ctx.ports.liveAdapter(setting.provider, {
    secretKey: ctx.secrets.open(setting.secret_key),
    webhookSecret: setting.webhook_secret === null ? null : ctx.secrets.open(setting.webhook_secret),
    apiUrl: apiUrlOf(ctx, setting.provider),
  });
}

/**
 * The real provider `provider` names for the tenant, when the workspace gave its key for this mode (its sandbox
 * in test mode); in test mode without a key, Paystack's and Stripe's simulator, which follows their flows. Null
 * keeps the seed's simulator (test mode) or the unavailable provider (live mode) of `ctx.ports.provider`.
 */
export async function liveProvider(
  ctx: AppContext,
  tenant: Tenant,
  provider: string,
  db: DbOrTrx = ctx.db,
): Promise<LiveProvider | null> {
  const setting = await findSetting(db, tenant, provider);
  const adapter = setting ? adapterOfSetting(ctx, setting) : null;
  if (setting && adapter) return { name: provider, setting, adapter };
  if (tenant.mode === 'test' && (provider === 'paystack' || provider === 'stripe')) {
    return { name: provider, setting: null, adapter: ctx.ports.simulatedLive(provider, tenant.clock) };
  }
  return null;
}

/** The provider that serves a rail for the tenant (`provider set --rails`), or `fallback` when none was set. */
export async function railProvider(
  db: DbOrTrx,
  tenant: TenantRef,
  rail: Rail,
  fallback: string,
): Promise<string> {
  const settings = await db
    .selectFrom('provider_settings')
    .select(['provider', 'rails'])
    .where('workspace_id', '=', tenant.workspaceId)
    .where('mode', '=', tenant.mode)
    .where('rails', '!=', '')
    .execute();
  return settings.find((setting) => railsOf(setting.rails).includes(rail))?.provider ?? fallback;
}

/**
 * A provider's refusal or silence during an API request, as the API answers it: unavailable (503, try again; the
 * request changed nothing), or refused (422 naming the field whose value the provider would not take).
 */
export function providerCallAnswer(error: ProviderCallError, provider: string, field: string): AppError {
  const name = providerDisplayName(provider);
  if (error.retryable) {
    return new AppError(
      'service_unavailable',
      `${name} did not answer (${error.message}). Nothing was changed; try again.`,
    );
  }
  return fieldError({ [field]: `${name} refused it: ${error.message}` }, `${name} refused the request.`);
}
