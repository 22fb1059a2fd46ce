import { batchedById } from '../../db/batched-reads.js';
import { containsText, type DialectName, forUpdate } from '../../db/dialect.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant, newestFirst } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { CustomerListQuery } from './customers.schemas.js';
import type { CustomerStatus, CustomersTable } from './customers.table.js';

export function insert(db: DbOrTrx, row: CustomersTable) {
  return db.insertInto('customers').values(row).execute();
}

/** Reads outside a transaction that arrive together share one statement. */
export const findById = batchedById((db, tenant, ids) =>
  db.selectFrom('customers').selectAll().where('id', 'in', ids).where(inTenant(tenant)).execute(),
);

/** The customer, one statement of its own; throws when it is missing. */
export function findOrThrow(db: DbOrTrx, tenant: TenantRef, id: string) {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('id', '=', id)
    .where(inTenant(tenant))
    .executeTakeFirstOrThrow();
}

/** The customer by its id alone, in whichever workspace; throws when it is missing. */
export function findAnyOrThrow(db: DbOrTrx, id: string) {
  return db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** The customer, locked until the transaction ends (PostgreSQL), so an update knows the values it replaces. */
export function findByIdForUpdate(db: DbOrTrx, dialect: DialectName, tenant: TenantRef, id: string) {
  return forUpdate(
    dialect,
    db.selectFrom('customers').selectAll().where('id', '=', id).where(inTenant(tenant)),
  ).executeTakeFirst();
}

/**
 * Changes the customer only while it is in `from`; no row when it is missing or in another state, so of two
 * concurrent changes that both start from the same state, one wins.
 */
export function updateIn(
  db: DbOrTrx,
  tenant: TenantRef,
  id: string,
  from: CustomerStatus,
  changes: Partial<CustomersTable>,
) {
  return db
    .updateTable('customers')
    .set(changes)
    .where('id', '=', id)
    .where(inTenant(tenant))
    .where('status', '=', from)
    .returningAll()
    .executeTakeFirst();
}

/** The list query with its phones in E.164: `phone` exact, `qPhone` the q read as a phone number. */
export interface CustomerListFilters extends Omit<CustomerListQuery, 'phone'> {
  phone?: string | undefined;
  qPhone?: string | undefined;
}

/** Newest first; fetches `limit + 1` rows so the caller can tell whether more follow. */
export function list(
  db: DbOrTrx,
  dialect: DialectName,
  tenant: TenantRef,
  query: CustomerListFilters & { limit: number },
  afterId: string | undefined,
) {
  let q = db.selectFrom('customers').selectAll().where(inTenant(tenant));
  if (query.status) q = q.where('status', '=', query.status);
  if (query.phone !== undefined) q = q.where('phone', '=', query.phone);
  if (query.q) {
    const { q: text, qPhone } = query;
    q = q.where((eb) =>
      eb.or([
        containsText(dialect, 'name', text),
        containsText(dialect, 'email', text),
        containsText(dialect, 'phone', text),
        ...(qPhone !== undefined ? [eb('phone', '=', qPhone)] : []),
      ]),
    );
  }
  return q.$call(newestFirst(afterId, query.limit)).execute();
}
