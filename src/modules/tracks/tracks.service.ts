import type { AppContext } from '../../context.js';
import type { DbOrTrx } from '../../db/schema.js';
import { fieldError, invalidState, notFound } from '../../lib/app-error.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { parseMetadata, stringifyMetadata } from '../../lib/json.js';
import { isCurrency } from '../../lib/money.js';
import type { AuthContext } from '../api-keys/api-keys.service.js';
import { getCustomerRow } from '../customers/customers.service.js';
import { recordEvent } from '../events/events.service.js';
import type { LedgerListQuery } from '../ledger/ledger.schemas.js';
import { appendEntry, listLedger } from '../ledger/ledger.service.js';
import type { Tenant } from '../tenant.js';
import * as repo from './tracks.repository.js';
import type { Track, TrackCreate, TrackListQuery, TrackUpdate } from './tracks.schemas.js';
import type { TracksTable } from './tracks.table.js';

export function toApi(row: TracksTable): Track {
  return {
    id: row.id,
    customerId: row.customer_id,
    title: row.title,
    amount: row.amount,
    balance: row.balance,
    amountPaid: row.amount_paid,
    currency: row.currency,
    installments: row.installments,
    status: row.status,
    dueDate: row.due_date,
    metadata: parseMetadata(row.metadata),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    archivedAt: row.archived_at,
  };
}

export async function createTrack(ctx: AppContext, auth: AuthContext, input: TrackCreate): Promise<Track> {
  const currency = input.currency ?? auth.workspace.defaultCurrency;
  if (!isCurrency(currency))
    throw fieldError({ currency: 'must be an ISO 4217 currency code such as NGN or USD' });
  const customer = await getCustomerRow(ctx, auth, input.customerId, 'customerId');
  if (customer.status !== 'active') throw invalidState('customer', customer.status, 'create_track');

  const now = ctx.clock.now().toISOString();
  const row: TracksTable = {
    id: newId('track'),
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
  await ctx.db.transaction().execute(async (trx) => {
    await repo.insert(trx, row);
    await appendEntry(trx, ctx.clock, auth, {
      type: 'plan.charged',
      trackId: row.id,
      customerId: row.customer_id,
      amount: row.amount,
      balanceAfter: row.balance,
      currency,
    });
    await recordEvent(trx, ctx.clock, auth, 'track.created', track);
  });
  return track;
}

/** The plan, or a 404 naming `field` when the id came from a request body. */
export async function getTrackRow(db: DbOrTrx, tenant: Tenant, id: string, field?: string) {
  const row = await repo.findById(db, tenant, id);
  if (!row) throw notFound('track', id, field);
  return row;
}

export async function getTrack(ctx: AppContext, tenant: Tenant, id: string): Promise<Track> {
  return toApi(await getTrackRow(ctx.db, tenant, id));
}

export async function listTracks(
  ctx: AppContext,
  tenant: Tenant,
  query: TrackListQuery,
): Promise<Page<Track>> {
  return paginate(
    query,
    'track',
    (limit, afterId) => repo.list(ctx.db, tenant, { ...query, limit }, afterId),
    toApi,
  );
}

/** The plan's ledger entries; a 404 for a plan that is not there. */
export async function listTrackLedger(ctx: AppContext, tenant: Tenant, id: string, query: LedgerListQuery) {
  await getTrackRow(ctx.db, tenant, id);
  return listLedger(ctx, tenant, query, { trackId: id });
}

/** Title, due date and metadata change in place; a new amount moves the balance and is a ledger adjustment. */
export async function updateTrack(
  ctx: AppContext,
  tenant: Tenant,
  id: string,
  input: TrackUpdate,
): Promise<Track> {
  return ctx.db.transaction().execute(async (trx) => {
    const current = await repo.findByIdForUpdate(trx, ctx.dialect, tenant, id);
    if (!current) throw notFound('track', id);
    if (current.status === 'archived') throw invalidState('track', current.status, 'update');

    const now = ctx.clock.now().toISOString();
    const changes: Partial<TracksTable> = {
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.dueDate !== undefined ? { due_date: input.dueDate } : {}),
      ...(input.metadata !== undefined ? { metadata: stringifyMetadata(input.metadata) } : {}),
      updated_at: now,
    };
    const delta = input.amount !== undefined ? input.amount - current.amount : 0;
    if (input.amount !== undefined && delta !== 0) {
      if (input.amount < current.amount_paid) {
        throw fieldError({ amount: `must be at least the ${current.amount_paid} already paid` });
      }
      changes.amount = input.amount;
      changes.balance = input.amount - current.amount_paid;
      changes.status = changes.balance === 0 ? 'completed' : 'active';
    }
    const row = await repo.update(trx, tenant, id, changes);
    const track = toApi(row);
    if (delta !== 0) {
      await appendEntry(trx, ctx.clock, tenant, {
        type: 'plan.adjusted',
        trackId: row.id,
        customerId: row.customer_id,
        amount: delta,
        balanceAfter: row.balance,
        currency: row.currency,
        refs: { previousAmount: String(current.amount) },
      });
    }
    await recordEvent(trx, ctx.clock, tenant, 'track.updated', track);
    if (row.status === 'completed' && current.status !== 'completed') {
      await recordEvent(trx, ctx.clock, tenant, 'track.completed', track);
    }
    return track;
  });
}

export async function archiveTrack(ctx: AppContext, tenant: Tenant, id: string): Promise<Track> {
  return ctx.db.transaction().execute(async (trx) => {
    const current = await repo.findByIdForUpdate(trx, ctx.dialect, tenant, id);
    if (!current) throw notFound('track', id);
    if (current.status === 'archived') throw invalidState('track', current.status, 'archive');
    const now = ctx.clock.now().toISOString();
    const track = toApi(
      await repo.update(trx, tenant, id, { status: 'archived', archived_at: now, updated_at: now }),
    );
    await recordEvent(trx, ctx.clock, tenant, 'track.archived', track);
    return track;
  });
}
