import type { DbOrTrx } from '../../db/schema.js';
import { inTenant, newestFirst } from '../../db/scoping.js';
import { shaped } from '../../db/shaped-statements.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { AuditEntriesTable } from './audit.table.js';

/** The insert of one entry, for the caller to run or to carry in its unit's last statement. */
export const insertQuery = shaped((db, row: AuditEntriesTable) => db.insertInto('audit_entries').values(row));

export interface AuditFilter {
  actorId?: string;
  recordId?: string;
  from?: string;
  to?: string;
  limit: number;
}

export function list(db: DbOrTrx, tenant: TenantRef, filter: AuditFilter, afterId: string | undefined) {
  let q = db.selectFrom('audit_entries').selectAll().where(inTenant(tenant));
  if (filter.actorId) q = q.where('actor_id', '=', filter.actorId);
  if (filter.recordId) q = q.where('record_id', '=', filter.recordId);
  if (filter.from) q = q.where('created_at', '>=', filter.from);
  if (filter.to) q = q.where('created_at', '<', filter.to);
  return q.$call(newestFirst(afterId, filter.limit)).execute();
}
