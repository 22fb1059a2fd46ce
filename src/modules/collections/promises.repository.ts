import type { DbOrTrx } from '../../db/schema.js';
import { inTenant, inTenantGroup, newestFirst, type TenantGroup } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { PromiseStatus, PromisesTable } from './collections.table.js';

export function insert(db: DbOrTrx, row: PromisesTable) {
  return db.insertInto('promises').values(row).execute();
}

export function findById(db: DbOrTrx, tenant: TenantRef, id: string) {
  return db
    .selectFrom('promises')
    .selectAll()
    .where('id', '=', id)
    .where(inTenant(tenant))
    .executeTakeFirst();
}

/** The plan's open promise (there is at most one). */
export function openOfTrack(db: DbOrTrx, tenant: TenantRef, trackId: string) {
  return db
    .selectFrom('promises')
    .selectAll()
    .where(inTenant(tenant))
    .where('track_id', '=', trackId)
    .where('status', '=', 'open')
    .executeTakeFirst();
}

export function list(
  db: DbOrTrx,
  tenant: TenantRef,
  query: {
    limit: number;
    status?: PromiseStatus | undefined;
    trackId?: string | undefined;
    customerId?: string | undefined;
  },
  afterId: string | undefined,
) {
  let q = db.selectFrom('promises').selectAll().where(inTenant(tenant));
  if (query.status) q = q.where('status', '=', query.status);
  if (query.trackId) q = q.where('track_id', '=', query.trackId);
  if (query.customerId) q = q.where('customer_id', '=', query.customerId);
  return q.$call(newestFirst(afterId, query.limit)).execute();
}

/** Moves an open promise to `status`; no row when it is no longer open. */
export function resolve(
  db: DbOrTrx,
  tenant: TenantRef,
  id: string,
  status: Exclude<PromiseStatus, 'open'>,
  now: string,
) {
  return db
    .updateTable('promises')
    .set({ status, resolved_at: now, updated_at: now })
    .where('id', '=', id)
    .where(inTenant(tenant))
    .where('status', '=', 'open')
    .returningAll()
    .executeTakeFirst();
}

/** Open promises whose time ran out by `now`, earliest first. */
export function fallingDue(db: DbOrTrx, group: TenantGroup, now: string, limit: number) {
  return db
    .selectFrom('promises')
    .select(['id', 'workspace_id'])
    .where('status', '=', 'open')
    .where('due_at', '<=', now)
    .where(inTenantGroup(group))
    .orderBy('due_at')
    .limit(limit)
    .execute();
}

/** When the next open promise runs out after `now`; null when none does. */
export async function nextFallingDue(db: DbOrTrx, group: TenantGroup, now: string): Promise<string | null> {
  const row = await db
    .selectFrom('promises')
    .select((eb) => eb.fn.min('due_at').as('next'))
    .where('status', '=', 'open')
    .where('due_at', '>', now)
    .where(inTenantGroup(group))
    .executeTakeFirst();
  return row?.next ?? null;
}
