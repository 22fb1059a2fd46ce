import type { AppContext } from '../../context.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { fieldError, invalidState, notFound } from '../../lib/app-error.js';
import { localDate } from '../../lib/calendar.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { stringifyMetadata } from '../../lib/json.js';
import { isCurrency } from '../../lib/money.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import { adjustPlanAmount, cancelSchedulesOfPlan } from '../../money/index.js';
import { changedFrom, recordEvent } from '../../outbox/outbox.js';
import type { AuthContext } from '../api-keys/api-keys.service.js';
import { getCustomerRow } from '../customers/customers.service.js';
import type { LedgerListQuery } from '../ledger/ledger.schemas.js';
import { appendEntry, listLedger } from '../ledger/ledger.service.js';
import type { Payment, TrackPaymentListQuery } from '../payments/payments.schemas.js';
import { listPayments } from '../payments/payments.service.js';
import { toApi } from './tracks.mapper.js';
import * as repo from './tracks.repository.js';
import type { Track, TrackCreate, TrackListQuery, TrackUpdate } from './tracks.schemas.js';
import type { TrackStatus, TracksTable } from './tracks.table.js';

// Reads other modules make of plans.
export {
  /** The plan, or undefined; reads outside a transaction that arrive together share one statement. */
  findById as findTrack,
  /** The plan, locked until the transaction ends (PostgreSQL), so a change knows the values it replaces. */
  findByIdForUpdate as findTrackForUpdate,
} from './tracks.repository.js';

const NOT_ARCHIVED: readonly TrackStatus[] = ['active', 'completed'];

export async function createTrack(ctx: AppContext, auth: AuthContext, input: TrackCreate): Promise<Track> {
  const currency = input.currency ?? auth.workspace.defaultCurrency;
  if (!isCurrency(currency))
    throw fieldError({ currency: 'must be an ISO 4217 currency code such as NGN or USD' });
  return inTransaction(ctx, auth, async (trx) => {
    const customer = await getCustomerRow(trx, auth, input.customerId, 'customerId');
    if (customer.status !== 'active') throw invalidState('customer', customer.status, 'create_track');

    const at = auth.clock.now();
    const now = at.toISOString();
    const row: TracksTable = {
      id: newId('track', at),
      workspace_id: auth.workspaceId,
      mode: auth.mode,
      customer_id: customer.id,
      title: input.title,
      amount: input.amount,
      balance: input.amount,
      amount_paid: 0,
      currency,
      installments: input.installments ?? null,
      status: 'active',
      due_date: input.dueDate ?? null,
      metadata: stringifyMetadata(input.metadata),
      created_at: now,
      updated_at: now,
      archived_at: null,
    };
    const track = toApi(row);
    await repo.insert(trx, row);
    await appendEntry(trx, auth, {
      type: 'plan.charged',
      trackId: row.id,
      customerId: row.customer_id,
      amount: row.amount,
      balanceAfter: row.balance,
      currency,
    });
    await recordEvent(trx, auth, 'track.created', track);
    return track;
  });
}

/** The plan, or a 404 naming `field` when the id came from a request body. */
export async function getTrackRow(db: DbOrTrx, tenant: TenantRef, id: string, field?: string) {
  const row = await repo.findById(db, tenant, id);
  if (!row) throw notFound('track', id, field);
  return row;
}

export async function getTrack(ctx: AppContext, tenant: TenantRef, id: string): Promise<Track> {
  return toApi(await getTrackRow(ctx.db, tenant, id));
}

export async function listTracks(
  ctx: AppContext,
  auth: AuthContext,
  query: TrackListQuery,
): Promise<Page<Track>> {
  const at = auth.clock.now().toISOString();
  const now = { at, today: localDate(at, auth.workspace.timezone) };
  return paginate(
    query,
    'track',
    (limit, afterId) => repo.list(ctx.db, auth, { ...query, limit }, now, afterId),
    toApi,
  );
}

/** The plan's ledger entries; a 404 for a plan that is not there. */
export async function listTrackLedger(
  ctx: AppContext,
  tenant: TenantRef,
  id: string,
  query: LedgerListQuery,
) {
  await getTrackRow(ctx.db, tenant, id);
  return listLedger(ctx, tenant, query, { trackId: id });
}

/** The plan's payments; a 404 for a plan that is not there. */
export async function listTrackPayments(
  ctx: AppContext,
  tenant: TenantRef,
  trackId: string,
  query: TrackPaymentListQuery,
): Promise<Page<Payment>> {
  await getTrackRow(ctx.db, tenant, trackId);
  return listPayments(ctx, tenant, { ...query, trackId });
}

/** Why a conditional change found no row: the plan is missing, or in a state the change does not leave. */
async function refusal(trx: DbOrTrx, tenant: TenantRef, id: string, action: string): Promise<never> {
  const current = await getTrackRow(trx, tenant, id);
  throw invalidState('track', current.status, action);
}

/**
 * Title, due date and metadata change in place; a new amount moves the balance through the money core and is
 * a ledger adjustment (a lower one trims the plan's open obligations to the new balance). One `track.updated`
 * carries the old values of everything that changed.
 */
export async function updateTrack(
  ctx: AppContext,
  tenant: Tenant,
  id: string,
  input: TrackUpdate,
): Promise<Track> {
  return inTransaction(ctx, tenant, async (trx) => {
    // Locked first, so the old values and the amount delta are exact.
    const before = await repo.findByIdForUpdate(trx, ctx.dialect, tenant, id);
    const updated = await repo.updateIn(trx, tenant, id, NOT_ARCHIVED, {
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.dueDate !== undefined ? { due_date: input.dueDate } : {}),
      ...(input.metadata !== undefined ? { metadata: stringifyMetadata(input.metadata) } : {}),
      updated_at: tenant.clock.now().toISOString(),
    });
    if (!updated || !before) return refusal(trx, tenant, id, 'update');
    const alsoChanged = changedFrom(toApi(before), toApi(updated));
    if (input.amount === undefined || input.amount === updated.amount) {
      const track = toApi(updated);
      if (alsoChanged) await recordEvent(trx, tenant, 'track.updated', track, alsoChanged);
      return track;
    }
    return toApi(await adjustPlanAmount(trx, tenant, updated, input.amount, alsoChanged));
  });
}

export async function archiveTrack(ctx: AppContext, tenant: Tenant, id: string): Promise<Track> {
  return inTransaction(ctx, tenant, async (trx) => {
    const now = tenant.clock.now().toISOString();
    const row = await repo.updateIn(trx, tenant, id, NOT_ARCHIVED, {
      status: 'archived',
      archived_at: now,
      updated_at: now,
    });
    if (!row) return refusal(trx, tenant, id, 'archive');
    const track = toApi(row);
    await cancelSchedulesOfPlan(trx, tenant, id);
    await recordEvent(trx, tenant, 'track.archived', track);
    return track;
  });
}
