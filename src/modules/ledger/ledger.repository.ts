import type { DbOrTrx } from '../../db/schema.js';
import { inTenant, newestFirst } from '../../db/scoping.js';
import { rowsOf, shaped } from '../../db/shaped-statements.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { LedgerListQuery } from './ledger.schemas.js';
import type { LedgerEntriesTable } from './ledger.table.js';

const insertStatement = shaped((db, rows: LedgerEntriesTable | readonly LedgerEntriesTable[]) =>
  db.insertInto('ledger_entries').values(rows),
);

export async function insert(
  db: DbOrTrx,
  rows: LedgerEntriesTable | readonly LedgerEntriesTable[],
): Promise<void> {
  await rowsOf(db, insertStatement(db, rows));
}

export interface LedgerScope {
  trackId?: string;
  customerId?: string;
}

export function list(
  db: DbOrTrx,
  tenant: TenantRef,
  scope: LedgerScope,
  query: LedgerListQuery & { limit: number; from?: string; to?: string },
  afterId: string | undefined,
) {
  let q = db.selectFrom('ledger_entries').selectAll().where(inTenant(tenant));
  if (scope.trackId) q = q.where('track_id', '=', scope.trackId);
  if (scope.customerId) q = q.where('customer_id', '=', scope.customerId);
  if (query.type) q = q.where('type', '=', query.type);
  if (query.from) q = q.where('occurred_at', '>=', query.from);
  if (query.to) q = q.where('occurred_at', '<', query.to);
  return q.$call(newestFirst(afterId, query.limit)).execute();
}
