import type { AppContext } from '../../context.js';
import { type DialectName, isUniqueViolation } from '../../db/dialect.js';
import type { DbOrTrx, Trx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { fieldError, invalidState, notFound } from '../../lib/app-error.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { randomToken, sha256 } from '../../lib/link-tokens.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import { recordEvent } from '../../outbox/outbox.js';
import type { AuthorizationState } from '../../ports/live-provider.js';
import type { AuthContext } from '../api-keys/api-keys.service.js';
import { getCustomerRow } from '../customers/customers.service.js';
import { appendEntry } from '../ledger/ledger.service.js';
import { liveProvider } from '../providers/adapters.service.js';
import { isApproved } from '../providers/providers.service.js';
import { findScheduleForUpdate, findScheduleRow } from '../schedules/schedules.service.js';
import { findTrack } from '../tracks/tracks.service.js';
import { toApi } from './mandates.mapper.js';
import * as repo from './mandates.repository.js';
import type { Mandate, MandateCreate, MandateListQuery, MandateRevoke } from './mandates.schemas.js';
import type { MandatesTable } from './mandates.table.js';

// Reads other modules make of mandates.
export {
  findById as findMandate,
  /** The mandate a schedule's collections run on (its active one, else one consented awaiting approval). */
  forCollection as mandateForCollection,
} from './mandates.repository.js';

/** How long a consent URL works. */
export type ActiveAuthorization = Extract<AuthorizationState, { status: 'active' }>;

export const CONSENT_TTL_MS = 24 * 60 * 60 * 1000;

/** The payer: the customer named, else the customer of the schedule's plan; both must agree when both are known. */
async function payerOf(trx: Trx, tenant: TenantRef, input: MandateCreate, scheduleTrackId: string | null) {
  const planCustomer = scheduleTrackId
    ? ((await findTrack(trx, tenant, scheduleTrackId))?.customer_id ?? null)
    : null;
  const payerId = input.payer_id ?? planCustomer;
  if (!payerId) {
    throw fieldError({
      payer_id: 'is required when the mandate has no schedule with a plan to take the payer from',
    });
  }
  const customer = await getCustomerRow(trx, tenant, payerId, 'payer_id');
  if (customer.status !== 'active') throw invalidState('customer', customer.status, 'create_mandate');
  if (planCustomer && planCustomer !== customer.id) {
    throw fieldError({ payer_id: "must be the customer of the schedule's plan" });
  }
  return customer;
}

/**
 * A pending mandate and its one-time consent URL (`PUBLIC_URL/consent/<token>`), which works for 24 hours. Only
 * the token's hash is stored, so the URL is in this answer alone.
 */
export async function createMandate(
  ctx: AppContext,
  auth: AuthContext,
  input: MandateCreate,
): Promise<Mandate> {
  return inTransaction(ctx, auth, async (trx) => {
    let scheduleTrackId: string | null = null;
    if (input.schedule_id) {
      const schedule = await findScheduleRow(trx, auth, input.schedule_id);
      if (!schedule) throw notFound('schedule', input.schedule_id, 'schedule_id');
      if (schedule.status === 'cancelled' || schedule.status === 'completed') {
        throw invalidState('schedule', schedule.status, 'create_mandate');
      }
      scheduleTrackId = schedule.track_id;
    }
    const payer = await payerOf(trx, auth, input, scheduleTrackId);
    const at = auth.clock.now();
    const now = at.toISOString();
    const token = randomToken('ct');
    const row: MandatesTable = {
      id: newId('mandate', at),
      workspace_id: auth.workspaceId,
      mode: auth.mode,
      payer_type: 'customer',
      payer_id: payer.id,
      provider: input.provider,
      schedule_id: input.schedule_id ?? null,
      status: 'pending',
      consent_token_hash: sha256(token),
      form_token_hash: null,
      consent_expires_at: new Date(at.getTime() + CONSENT_TTL_MS).toISOString(),
      consented_at: null,
      consent: null,
      provider_mandate_id: null,
      authorization_reference: null,
      authorization_url: null,
      provider_reference: null,
      customer_reference: null,
      payer_email: null,
      payment_method_type: null,
      payment_method_bank: null,
      payment_method_last4: null,
      activated_at: null,
      revoked_at: null,
      revocation_reason: null,
      replaced_at: null,
      replaced_by: null,
      failure_reason: null,
      created_at: now,
      updated_at: now,
    };
    await repo.insert(trx, row);
    await recordEvent(trx, auth, 'mandate.created', toApi(row));
    return toApi(row, `${ctx.config.publicUrl}/consent/${token}`);
  });
}

export async function getMandate(ctx: AppContext, tenant: TenantRef, id: string): Promise<Mandate> {
  const row = await repo.findById(ctx.db, tenant, id);
  if (!row) throw notFound('mandate', id);
  return toApi(row);
}

export function listMandates(
  ctx: AppContext,
  tenant: TenantRef,
  query: MandateListQuery,
): Promise<Page<Mandate>> {
  return paginate(
    query,
    'mandate',
    (limit, afterId) => repo.list(ctx.db, tenant, { ...query, limit }, afterId),
    (row) => toApi(row),
  );
}

/** The ledger entry of a mandate's activation, replacement or revocation: it moves no money (amount 0). */
async function ledgerEntryOf(
  trx: DbOrTrx,
  tenant: Tenant,
  mandate: MandatesTable,
  type: 'mandate.activated' | 'mandate.replaced' | 'mandate.revoked',
  defaultCurrency: string,
): Promise<void> {
  const schedule = mandate.schedule_id ? await findScheduleRow(trx, tenant, mandate.schedule_id) : undefined;
  const track = schedule?.track_id ? await findTrack(trx, tenant, schedule.track_id) : undefined;
  await appendEntry(trx, tenant, {
    type,
    trackId: track?.id ?? null,
    customerId: mandate.payer_id,
    amount: 0,
    balanceAfter: track?.balance ?? null,
    currency: schedule?.currency ?? defaultCurrency,
    refs: {
      mandateId: mandate.id,
      ...(schedule ? { scheduleId: schedule.id } : {}),
      ...(mandate.replaced_by ? { replacedBy: mandate.replaced_by } : {}),
    },
  });
}

/** The workspace's default currency, for ledger entries of mandates without a schedule. */
export async function defaultCurrencyOf(trx: DbOrTrx, workspaceId: string): Promise<string> {
  const row = await trx
    .selectFrom('workspaces')
    .select('default_currency')
    .where('id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return row.default_currency;
}

/**
 * A pending or active mandate is revoked: no attempt of its schedule runs on it again. Its schedule has no other
 * active mandate (at most one is), so the schedule's attempts wait, blocked, until a new one is approved.
 */
export async function revokeMandate(
  ctx: AppContext,
  tenant: Tenant,
  id: string,
  input: MandateRevoke,
): Promise<Mandate> {
  return inTransaction(ctx, tenant, async (trx) => {
    const before = await repo.findById(trx, tenant, id);
    if (!before) throw notFound('mandate', id);
    const now = tenant.clock.now().toISOString();
    const revoked = await repo.updateIn(trx, tenant, id, ['pending', 'active'], {
      status: 'revoked',
      revoked_at: now,
      revocation_reason: input.reason ?? null,
      updated_at: now,
    });
    if (!revoked) throw invalidState('mandate', before.status, 'revoke');
    if (before.status === 'active') {
      await ledgerEntryOf(
        trx,
        tenant,
        revoked,
        'mandate.revoked',
        await defaultCurrencyOf(trx, tenant.workspaceId),
      );
    }
    const mandate = toApi(revoked);
    await recordEvent(trx, tenant, 'mandate.revoked', mandate, { status: before.status });
    return mandate;
  });
}

/**
 * Makes a consented mandate active (in the caller's transaction), with the id its provider gave it: its ledger
 * entry and event. The schedule's mandate active until now becomes `replaced` by it (its own ledger entry and
 * event), so a schedule never has two. Returns null when it was not pending with consent any more.
 */
export async function activate(
  trx: Trx,
  dialect: DialectName,
  tenant: Tenant,
  id: string,
  providerMandateId: string | null,
  /** What a real provider confirmed: what charges use, the payer there, the payment method's summary. */
  confirmed?: ActiveAuthorization,
): Promise<MandatesTable | null> {
  const found = await repo.findById(trx, tenant, id);
  // Two approvals for one schedule queue on its row (PostgreSQL; SQLite has one writer at a time): the second
  // sees the first active and replaces it. The mandate's own row is locked after it, so no revoke slips between.
  if (found?.schedule_id) await findScheduleForUpdate(trx, dialect, tenant, found.schedule_id);
  const mandate = await repo.findByIdForUpdate(trx, dialect, tenant, id);
  if (mandate?.status !== 'pending' || mandate.consented_at === null) return null;
  const now = tenant.clock.now().toISOString();
  const defaultCurrency = await defaultCurrencyOf(trx, tenant.workspaceId);
  const replaced = mandate.schedule_id
    ? await repo.replaceActive(trx, tenant, mandate.schedule_id, id, now)
    : [];
  for (const old of replaced) {
    await ledgerEntryOf(trx, tenant, old, 'mandate.replaced', defaultCurrency);
    await recordEvent(trx, tenant, 'mandate.replaced', toApi(old), { status: 'active' });
  }
  const active = await repo.updateIn(
    trx,
    tenant,
    id,
    ['pending'],
    {
      status: 'active',
      activated_at: now,
      provider_mandate_id: providerMandateId,
      ...(confirmed && {
        provider_reference: confirmed.providerReference,
        customer_reference: confirmed.customerReference,
        payment_method_type: confirmed.paymentMethod?.type ?? null,
        payment_method_bank: confirmed.paymentMethod?.bank ?? null,
        payment_method_last4: confirmed.paymentMethod?.last4 ?? null,
      }),
      updated_at: now,
    },
    { consented: true },
  );
  if (!active) throw new Error(`mandate ${id} changed while locked`);
  await ledgerEntryOf(trx, tenant, active, 'mandate.activated', defaultCurrency);
  await recordEvent(trx, tenant, 'mandate.activated', toApi(active), { status: 'pending' });
  return active;
}

/** Tries of an activation that met the one-active-mandate index (another activation got past the lock). */
const ACTIVATION_TRIES = 3;

/**
 * A consented mandate whose provider has approved the workspace (always so in test mode) is registered with the
 * provider, outside any transaction (the mandate id is the provider's idempotency key), then made active.
 * Returns whether it became active. A provider that cannot be reached throws: the mandate stays pending,
 * consented, and the `mandates.activate` sweep tries again.
 */
export async function registerAndActivate(ctx: AppContext, tenant: Tenant, id: string): Promise<boolean> {
  const mandate = await repo.findById(ctx.db, tenant, id);
  if (mandate?.status !== 'pending' || mandate.consented_at === null) return false;
  // A real provider's mandate is active when the provider confirms the payer's authorization, not before.
  if (await liveProvider(ctx, tenant, mandate.provider)) return false;
  if (!(await isApproved(ctx.db, tenant, mandate.provider))) return false;
  const payer = await getCustomerRow(ctx.db, tenant, mandate.payer_id);
  const schedule = mandate.schedule_id
    ? await findScheduleRow(ctx.db, tenant, mandate.schedule_id)
    : undefined;
  const registered = await ctx.ports.provider(tenant.mode, mandate.provider).createMandate({
    mandateId: mandate.id,
    payerName: payer.name,
    amount: schedule?.fixed_amount ?? null,
    currency: schedule?.currency ?? null,
  });
  for (let tries = 1; ; tries++) {
    try {
      const active = await inTransaction(ctx, tenant, (trx) =>
        activate(trx, ctx.dialect, tenant, id, registered?.providerMandateId ?? null),
      );
      return active !== null;
    } catch (error) {
      // Tried again, it sees the other activation and replaces it.
      if (!isUniqueViolation(error) || tries >= ACTIVATION_TRIES) throw error;
    }
  }
}

/** Live mandates consented while their provider was not approved: active once it is. Returns how many. */
export async function activateAwaitingApproval(
  ctx: AppContext,
  tenant: Tenant,
  provider: string,
): Promise<number> {
  if (!(await isApproved(ctx.db, tenant, provider))) return 0;
  let activated = 0;
  for (const { id } of await repo.awaitingApproval(ctx.db, tenant, provider)) {
    if (await registerAndActivate(ctx, tenant, id)) activated++;
  }
  return activated;
}
