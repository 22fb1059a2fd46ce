import { randomBytes } from 'node:crypto';
import type { Db, DbOrTrx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { Received } from '../../money/index.js';
import type { NotificationOutcome, ProviderSettingsTable } from './providers.table.js';

/** Provider names: what integrators call their providers, kept to a safe form. */
export const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/;

export function findSetting(db: DbOrTrx, tenant: TenantRef, provider: string) {
  return db
    .selectFrom('provider_settings')
    .selectAll()
    .where(inTenant(tenant))
    .where('provider', '=', provider)
    .executeTakeFirst();
}

/** Whether automatic debit through `provider` may run for the tenant: always in test mode, once approved in live. */
export async function isApproved(db: DbOrTrx, tenant: TenantRef, provider: string): Promise<boolean> {
  if (tenant.mode === 'test') return true;
  return (await findSetting(db, tenant, provider))?.approved === 1;
}

export interface SettingInput extends TenantRef {
  provider: string;
  /** Unchanged when undefined. */
  approved?: boolean;
}

/**
 * Creates or updates a workspace's settings for a provider; a new setting gets a notification secret, shown
 * once by the command line. Returns the setting and whether it was created.
 */
export async function setProvider(
  db: Db,
  clock: Clock,
  input: SettingInput,
): Promise<{ setting: ProviderSettingsTable; created: boolean }> {
  const at = clock.now();
  const now = at.toISOString();
  const existing = await findSetting(db, input, input.provider);
  if (existing) {
    const setting = await db
      .updateTable('provider_settings')
      .set({
        ...(input.approved === undefined ? {} : { approved: input.approved ? 1 : 0 }),
        updated_at: now,
      })
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { setting, created: false };
  }
  const setting: ProviderSettingsTable = {
    id: newId('providerSetting', at),
    workspace_id: input.workspaceId,
    mode: input.mode,
    provider: input.provider,
    approved: input.approved ? 1 : 0,
    notification_secret: `pns_${randomBytes(24).toString('base64url')}`,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('provider_settings').values(setting).execute();
  return { setting, created: true };
}

/** Names payers know providers by; the seed's two test rails get readable names too. */
const DISPLAY_NAMES: Record<string, string> = {
  paystack: 'Paystack',
  stripe: 'Stripe',
  flutterwave: 'Flutterwave',
  gatewaya: 'Gateway A',
  gatewayb: 'Gateway B',
};

/** A provider's name as payers know it ("paystack": "Paystack"); a name not in the table as it was given. */
export function providerDisplayName(provider: string): string {
  return DISPLAY_NAMES[provider.toLowerCase()] ?? provider;
}

/** What became of money reported for a checkout, a transfer or a charge. */
export interface Handled {
  outcome: NotificationOutcome;
  paymentId: string | null;
  reason: string | null;
}

/** What became of money a provider reported, as a notification's receipt says it. */
export function handledOf(received: Received): Handled {
  const { payment, credit } = received;
  if (!received.recorded) return { outcome: 'already_recorded', paymentId: payment.id, reason: null };
  if (payment.unapplied) {
    return { outcome: 'unapplied', paymentId: payment.id, reason: payment.unappliedReason };
  }
  return {
    outcome: 'recorded',
    paymentId: payment.id,
    reason: credit
      ? `overpayment: ${credit.amount} more than was owed is the customer's credit, payment ${credit.id}`
      : null,
  };
}
