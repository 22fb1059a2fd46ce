import { randomBytes } from 'node:crypto';
import type { Db, DbOrTrx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { Mode, TenantRef } from '../../lib/tenant.js';
import type { Received } from '../../money/index.js';
import { LIVE_PROVIDERS, liveProviderFacts, type Rail, railsOf } from './live-providers.js';
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
  /** The provider's secret key for this mode; unchanged when undefined. */
  secretKey?: string;
  /** Stripe's webhook signing secret; unchanged when undefined. */
  webhookSecret?: string;
  /** The rails this setting serves from now on; unchanged when undefined. A rail moves here from another setting. */
  rails?: Rail[];
}

/** A setting that cannot be made as asked; the message names the option. */
export class SettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingError';
  }
}

/** What is wrong with a setting as asked (naming the option), or null. */
export function settingProblem(input: SettingInput): string | null {
  const facts = liveProviderFacts(input.provider);
  if (!facts) {
    if (input.secretKey !== undefined || input.webhookSecret !== undefined || input.rails !== undefined) {
      return `--provider: '${input.provider}' has no live adapter on this server (it has ${Object.keys(LIVE_PROVIDERS).join(', ')}); keys and rails are for those`;
    }
    return null;
  }
  if (input.secretKey !== undefined) {
    const prefixes = facts.keyPrefixes[input.mode];
    if (!/^[\x21-\x7e]{8,255}$/.test(input.secretKey)) {
      return '--secret-key-file: the key must be 8 to 255 printable characters without spaces';
    }
    if (!prefixes.some((prefix) => input.secretKey?.startsWith(prefix))) {
      return `--secret-key-file: a ${input.mode} ${input.provider} secret key starts with ${prefixes.join(' or ')}`;
    }
  }
  if (input.webhookSecret !== undefined) {
    if (facts.webhookSecret === 'none') {
      return `--webhook-secret-file: ${input.provider} signs its webhooks with the secret key; it has no webhook secret`;
    }
    if (!/^whsec_[\x21-\x7e]{8,250}$/.test(input.webhookSecret)) {
      return "--webhook-secret-file: a Stripe webhook signing secret starts with 'whsec_'";
    }
  }
  const unserved = input.rails?.filter((rail) => !facts.rails.includes(rail)) ?? [];
  if (unserved.length > 0) {
    return `--rails: ${input.provider} does not serve ${unserved.join(', ')} (it serves ${facts.rails.join(', ')})`;
  }
  return null;
}

/** The last four characters of a key: all of it that is ever shown. */
function lastFour(key: string): string {
  return key.slice(-4);
}

/**
 * Creates or updates a workspace's settings for a provider; a new setting gets a notification secret, shown
 * once by the command line. Keys are sealed with `secrets` before they are stored. Returns the setting, whether
 * it was created, and the settings a rail moved away from.
 */
export async function setProvider(
  db: Db,
  clock: Clock,
  input: SettingInput,
  secrets?: SecretBox,
): Promise<{ setting: ProviderSettingsTable; created: boolean; railsMovedFrom: string[] }> {
  const problem = settingProblem(input);
  if (problem) throw new SettingError(problem);
  const seal = (plain: string) => {
    if (!secrets) throw new SettingError('keys cannot be stored here: no secret box');
    return secrets.seal(plain);
  };
  const credentials = {
    ...(input.secretKey === undefined
      ? {}
      : { secret_key: seal(input.secretKey), key_last4: lastFour(input.secretKey) }),
    ...(input.webhookSecret === undefined ? {} : { webhook_secret: seal(input.webhookSecret) }),
    ...(input.rails === undefined ? {} : { rails: [...new Set(input.rails)].join(',') }),
  };
  const at = clock.now();
  const now = at.toISOString();
  return db.transaction().execute(async (trx) => {
    const existing = await findSetting(trx, input, input.provider);
    let setting: ProviderSettingsTable;
    if (existing) {
      setting = await trx
        .updateTable('provider_settings')
        .set({
          ...(input.approved === undefined ? {} : { approved: input.approved ? 1 : 0 }),
          ...credentials,
          updated_at: now,
        })
        .where('id', '=', existing.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    } else {
      setting = {
        id: newId('providerSetting', at),
        workspace_id: input.workspaceId,
        mode: input.mode,
        provider: input.provider,
        approved: input.approved ? 1 : 0,
        notification_secret: `pns_${randomBytes(24).toString('base64url')}`,
        secret_key: null,
        webhook_secret: null,
        key_last4: null,
        rails: '',
        ...credentials,
        created_at: now,
        updated_at: now,
      };
      await trx.insertInto('provider_settings').values(setting).execute();
    }
    const railsMovedFrom = await takeRails(trx, setting, now);
    return { setting, created: !existing, railsMovedFrom };
  });
}

/** A rail is served by one provider per workspace and mode: the setting that takes it removes it from others. */
async function takeRails(trx: DbOrTrx, setting: ProviderSettingsTable, now: string): Promise<string[]> {
  const taken = railsOf(setting.rails);
  if (taken.length === 0) return [];
  const others = await trx
    .selectFrom('provider_settings')
    .select(['id', 'provider', 'rails'])
    .where(inTenant({ workspaceId: setting.workspace_id, mode: setting.mode }))
    .where('id', '!=', setting.id)
    .where('rails', '!=', '')
    .execute();
  const movedFrom: string[] = [];
  for (const other of others) {
    const kept = railsOf(other.rails).filter((rail) => !taken.includes(rail));
    if (kept.length === railsOf(other.rails).length) continue;
    await trx
      .updateTable('provider_settings')
      .set({ rails: kept.join(','), updated_at: now })
      .where('id', '=', other.id)
      .where('rails', '=', other.rails)
      .execute();
    movedFrom.push(other.provider);
  }
  return movedFrom;
}

/** A setting as `provider list` shows it: never a key, only its last four characters. */
export interface SettingView {
  id: string;
  provider: string;
  mode: Mode;
  rails: Rail[];
  approved: boolean;
  liveAdapter: boolean;
  keyLast4: string | null;
  webhookSecretSet: boolean;
  webhookUrl: string;
  notificationUrl: string;
  updatedAt: string;
}

export function settingView(setting: ProviderSettingsTable, publicUrl: string): SettingView {
  return {
    id: setting.id,
    provider: setting.provider,
    mode: setting.mode,
    rails: railsOf(setting.rails),
    approved: setting.approved === 1,
    liveAdapter: liveProviderFacts(setting.provider) !== undefined && setting.secret_key !== null,
    keyLast4: setting.key_last4,
    webhookSecretSet: setting.webhook_secret !== null,
    webhookUrl: `${publicUrl}/api/v1/provider-webhooks/${setting.id}`,
    notificationUrl: `${publicUrl}/api/v1/provider-notifications/${setting.id}`,
    updatedAt: setting.updated_at,
  };
}

export function listSettings(db: DbOrTrx, workspaceId: string) {
  return db
    .selectFrom('provider_settings')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('mode')
    .orderBy('provider')
    .execute();
}

/**
 * Opens one stored key, so that a server started without PAYTRACK_SECRET_KEY, or with another one, says so at
 * once rather than at the first charge. Throws SecretKeyError.
 */
export async function checkSealedSecrets(db: DbOrTrx, secrets: SecretBox): Promise<void> {
  const sealed = await db
    .selectFrom('provider_settings')
    .select('secret_key')
    .where('secret_key', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  if (sealed?.secret_key) secrets.open(sealed.secret_key);
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

/**
 * Seals every stored key again under the current PAYTRACK_SECRET_KEY (a rotation: the old key given as
 * PAYTRACK_SECRET_KEY_PREVIOUS opens them). Each setting changes only while it still holds what was read.
 * Returns how many settings were sealed again.
 */
export async function resealSecrets(db: Db, secrets: SecretBox, clock: Clock): Promise<number> {
  const settings = await db
    .selectFrom('provider_settings')
    .select(['id', 'secret_key', 'webhook_secret'])
    .where((eb) => eb.or([eb('secret_key', 'is not', null), eb('webhook_secret', 'is not', null)]))
    .execute();
  let resealed = 0;
  for (const setting of settings) {
    const stale = [setting.secret_key, setting.webhook_secret].some(
      (sealed) => sealed !== null && !secrets.isCurrent(sealed),
    );
    if (!stale) continue;
    const again = (sealed: string | null) => (sealed === null ? null : secrets.seal(secrets.open(sealed)));
    let update = db
      .updateTable('provider_settings')
      .set({
        secret_key: again(setting.secret_key),
        webhook_secret: again(setting.webhook_secret),
        updated_at: clock.now().toISOString(),
      })
      .where('id', '=', setting.id);
    update =
      setting.secret_key === null
        ? update.where('secret_key', 'is', null)
        : update.where('secret_key', '=', setting.secret_key);
    const done = await update.executeTakeFirst();
    resealed += Number(done.numUpdatedRows);
  }
  return resealed;
}
