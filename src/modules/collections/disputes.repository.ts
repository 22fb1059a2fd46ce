import { type SqlBool, sql } from 'kysely';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant, newestFirst } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { DisputeStatus, DisputesTable } from './collections.table.js';

/** What a dispute is on: its payment, else its obligation, else its plan (the unique index of open ones). */
const target = sql<string>`coalesce(payment_id, obligation_id, track_id)`;

export function insert(db: DbOrTrx, row: DisputesTable) {
  return db.insertInto('disputes').values(row).execute();
}

export function findById(db: DbOrTrx, tenant: TenantRef, id: string) {
  return db
    .selectFrom('disputes')
    .selectAll()
    .where('id', '=', id)
    .where(inTenant(tenant))
    .executeTakeFirst();
}

/** The open dispute on a payment, obligation or plan (by its id), if any. */
export function openOn(db: DbOrTrx, tenant: TenantRef, targetId: string) {
  return (
    db
      .selectFrom('disputes')
      .selectAll()
      .where(inTenant(tenant))
      // Written out, not bound: the partial unique index of open disputes is then usable.
      .where(sql<SqlBool>`status = ${sql.lit('open')}`)
      .where(sql<SqlBool>`${target} = ${targetId}`)
      .executeTakeFirst()
  );
}

export function list(
  db: DbOrTrx,
  tenant: TenantRef,
  query: { limit: number; status?: DisputeStatus | undefined; trackId?: string | undefined },
  afterId: string | undefined,
) {
  let q = db.selectFrom('disputes').selectAll().where(inTenant(tenant));
  if (query.status) q = q.where('status', '=', query.status);
  if (query.trackId) q = q.where('track_id', '=', query.trackId);
  return q.$call(newestFirst(afterId, query.limit)).execute();
}

/** Resolves an open dispute; no row when it is missing or already resolved. */
export function resolve(
  db: DbOrTrx,
  tenant: TenantRef,
  id: string,
  changes: Pick<DisputesTable, 'status' | 'resolution_note' | 'resolved_at' | 'updated_at'>,
) {
  return db
    .updateTable('disputes')
    .set(changes)
    .where('id', '=', id)
    .where(inTenant(tenant))
    .where('status', '=', 'open')
    .returningAll()
    .executeTakeFirst();
}

export function setResolution(db: DbOrTrx, id: string, resolution: string) {
  return db.updateTable('disputes').set({ resolution }).where('id', '=', id).execute();
}
