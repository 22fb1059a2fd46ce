import type { DbOrTrx } from '../../db/schema.js';
import { inTenant, newestFirst } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';

export interface EventFilter {
  type?: string;
  from?: string;
  to?: string;
  /** Kept events only: created at or after this. */
  since: string;
  limit: number;
}

export function list(db: DbOrTrx, tenant: TenantRef, filter: EventFilter, afterId: string | undefined) {
  let q = db.selectFrom('events').selectAll().where(inTenant(tenant)).where('created_at', '>=', filter.since);
  if (filter.type) q = q.where('type', '=', filter.type);
  if (filter.from) q = q.where('created_at', '>=', filter.from);
  if (filter.to) q = q.where('created_at', '<', filter.to);
  return q.$call(newestFirst(afterId, filter.limit)).execute();
}

export function findById(db: DbOrTrx, tenant: TenantRef, id: string, since: string) {
  return db
    .selectFrom('events')
    .selectAll()
    .where('id', '=', id)
    .where(inTenant(tenant))
    .where('created_at', '>=', since)
    .executeTakeFirst();
}
