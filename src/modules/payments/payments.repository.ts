import type { DbOrTrx } from '../../db/schema.js';
import type { Tenant } from '../tenant.js';
import type { PaymentListQuery } from './payments.schemas.js';
import type { PaymentsTable } from './payments.table.js';

export function insert(db: DbOrTrx, row: PaymentsTable) {
  return db.insertInto('payments').values(row).execute();
}

export function findById(db: DbOrTrx, tenant: Tenant, id: string) {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', tenant.workspaceId)
    .where('mode', '=', tenant.mode)
    .executeTakeFirst();
}

export function findByReference(db: DbOrTrx, tenant: Tenant, reference: string) {
  return db
    .selectFrom('payments')
    .select('id')
    .where('workspace_id', '=', tenant.workspaceId)
    .where('mode', '=', tenant.mode)
    .where('reference', '=', reference)
    .executeTakeFirst();
}

export function list(
  db: DbOrTrx,
  tenant: Tenant,
  query: PaymentListQuery & { limit: number },
  afterId: string | undefined,
) {
  let q = db
    .selectFrom('payments')
    .selectAll()
    .where('workspace_id', '=', tenant.workspaceId)
    .where('mode', '=', tenant.mode);
  if (afterId) q = q.where('id', '<', afterId);
  if (query.trackId) q = q.where('track_id', '=', query.trackId);
  if (query.customerId) q = q.where('customer_id', '=', query.customerId);
  if (query.method) q = q.where('method', '=', query.method);
  if (query.from) q = q.where('paid_at', '>=', query.from);
  if (query.to) q = q.where('paid_at', '<', query.to);
  return q
    .orderBy('id', 'desc')
    .limit(query.limit + 1)
    .execute();
}
