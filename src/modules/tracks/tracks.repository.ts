import { sql } from 'kysely';
import { type DialectName, forUpdate } from '../../db/dialect.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant, newestFirst } from '../../db/scoping.js';
import type { Tenant } from '../tenant.js';
import type { TrackListQuery } from './tracks.schemas.js';
import type { TracksTable } from './tracks.table.js';

export function insert(db: DbOrTrx, row: TracksTable) {
  return db.insertInto('tracks').values(row).execute();
}

function byId(db: DbOrTrx, tenant: Tenant, id: string) {
  return db.selectFrom('tracks').selectAll().where('id', '=', id).where(inTenant(tenant));
}

export function findById(db: DbOrTrx, tenant: Tenant, id: string) {
  return byId(db, tenant, id).executeTakeFirst();
}

/** The plan, locked until the transaction ends. */
export function findByIdForUpdate(db: DbOrTrx, dialect: DialectName, tenant: Tenant, id: string) {
  return forUpdate(dialect, byId(db, tenant, id)).executeTakeFirst();
}

export function update(db: DbOrTrx, tenant: Tenant, id: string, changes: Partial<TracksTable>) {
  return db
    .updateTable('tracks')
    .set(changes)
    .where('id', '=', id)
    .where(inTenant(tenant))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Takes a payment off the balance in one atomic statement; no row when the plan is missing, not active,
 * or owes less than the amount. Concurrent payments queue on the row and each sees the balance the last left.
 */
export function applyPayment(db: DbOrTrx, tenant: Tenant, id: string, amount: number, now: string) {
  return db
    .updateTable('tracks')
    .set({
      balance: sql`balance - ${amount}`,
      amount_paid: sql`amount_paid + ${amount}`,
      status: sql`case when balance = ${amount} then 'completed' else status end`,
      updated_at: now,
    })
    .where('id', '=', id)
    .where(inTenant(tenant))
    .where('status', '=', 'active')
    .where('balance', '>=', amount)
    .returningAll()
    .executeTakeFirst();
}

export function list(
  db: DbOrTrx,
  tenant: Tenant,
  query: TrackListQuery & { limit: number },
  afterId: string | undefined,
) {
  let q = db.selectFrom('tracks').selectAll().where(inTenant(tenant));
  if (query.customerId) q = q.where('customer_id', '=', query.customerId);
  if (query.status) q = q.where('status', '=', query.status);
  return q.$call(newestFirst(afterId, query.limit)).execute();
}
