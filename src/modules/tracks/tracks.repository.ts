import { type SqlBool, sql } from 'kysely';
import { batchedById } from '../../db/batched-reads.js';
import { type DialectName, forUpdate } from '../../db/dialect.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant, newestFirst } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';
import { planOverdueNow } from '../schedules/obligations.overdue.js';
import type { TrackListQuery } from './tracks.schemas.js';
import type { TrackStatus, TracksTable } from './tracks.table.js';

export function insert(db: DbOrTrx, row: TracksTable) {
  return db.insertInto('tracks').values(row).execute();
}

/** Reads outside a transaction that arrive together share one statement. */
export const findById = batchedById((db, tenant, ids) =>
  db.selectFrom('tracks').selectAll().where('id', 'in', ids).where(inTenant(tenant)).execute(),
);

/** The plan, locked until the transaction ends (PostgreSQL), so a change knows the values it replaces. */
export function findByIdForUpdate(db: DbOrTrx, dialect: DialectName, tenant: TenantRef, id: string) {
  return forUpdate(
    dialect,
    db.selectFrom('tracks').selectAll().where('id', '=', id).where(inTenant(tenant)),
  ).executeTakeFirst();
}

/**
 * The plan's row, locked for the rest of the transaction without knowing the dialect: a write of nothing, which
 * takes the row lock on PostgreSQL (SQLite has one writer at a time already).
 */
export function lockTrack(db: DbOrTrx, tenant: TenantRef, id: string) {
  return db
    .updateTable('tracks')
    .set({ updated_at: sql`updated_at` })
    .where('id', '=', id)
    .where(inTenant(tenant))
    .returningAll()
    .executeTakeFirst();
}

/**
 * Changes fields that move no money, only while the plan is in one of `from`; no row when it is missing or in
 * another state. Balance, amount and paid total change only through the money core (`src/money/balance.ts`).
 */
export function updateIn(
  db: DbOrTrx,
  tenant: TenantRef,
  id: string,
  from: readonly TrackStatus[],
  changes: Partial<
    Pick<TracksTable, 'title' | 'due_date' | 'metadata' | 'status' | 'archived_at' | 'updated_at'>
  >,
) {
  return db
    .updateTable('tracks')
    .set(changes)
    .where('id', '=', id)
    .where(inTenant(tenant))
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();
}

/** Plans newest first; `overdue` as of `now` (an instant, and its calendar date in the workspace zone). */
export function list(
  db: DbOrTrx,
  tenant: TenantRef,
  query: TrackListQuery & { limit: number },
  now: { at: string; today: string },
  afterId: string | undefined,
) {
  let q = db.selectFrom('tracks').selectAll().where(inTenant(tenant));
  if (query.customerId) q = q.where('customer_id', '=', query.customerId);
  if (query.status) q = q.where('status', '=', query.status);
  if (query.overdue !== undefined) {
    const overdue = planOverdueNow(now.at, now.today);
    q = q.where(query.overdue ? overdue : sql<SqlBool>`not ${overdue}`);
  }
  return q.$call(newestFirst(afterId, query.limit)).execute();
}
