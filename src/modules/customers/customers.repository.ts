import { containsText, type DialectName } from '../../db/dialect.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant, newestFirst } from '../../db/scoping.js';
import type { Tenant } from '../tenant.js';
import type { CustomerListQuery } from './customers.schemas.js';
import type { CustomersTable } from './customers.table.js';

export function insert(db: DbOrTrx, row: CustomersTable) {
  return db.insertInto('customers').values(row).execute();
}

export function findById(db: DbOrTrx, tenant: Tenant, id: string) {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('id', '=', id)
    .where(inTenant(tenant))
    .executeTakeFirst();
}

export function update(db: DbOrTrx, tenant: Tenant, id: string, changes: Partial<CustomersTable>) {
  return db
    .updateTable('customers')
    .set(changes)
    .where('id', '=', id)
    .where(inTenant(tenant))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Newest first; fetches `limit + 1` rows so the caller can tell whether more follow. */
export function list(
  db: DbOrTrx,
  dialect: DialectName,
  tenant: Tenant,
  query: CustomerListQuery & { limit: number },
  afterId: string | undefined,
) {
  let q = db.selectFrom('customers').selectAll().where(inTenant(tenant));
  if (query.status) q = q.where('status', '=', query.status);
  if (query.q) {
    const text = query.q;
    q = q.where((eb) =>
      eb.or([
        containsText(dialect, 'name', text),
        containsText(dialect, 'email', text),
        containsText(dialect, 'phone', text),
      ]),
    );
  }
  return q.$call(newestFirst(afterId, query.limit)).execute();
}
