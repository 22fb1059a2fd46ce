import type { DbOrTrx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { SettlementQuotesTable } from './settlement-quotes.table.js';

export function insert(db: DbOrTrx, row: SettlementQuotesTable) {
  return db.insertInto('settlement_quotes').values(row).execute();
}

export function findById(db: DbOrTrx, tenant: TenantRef, id: string) {
  return db
    .selectFrom('settlement_quotes')
    .selectAll()
    .where('id', '=', id)
    .where(inTenant(tenant))
    .executeTakeFirst();
}

/** Marks the quote used by a payment, only while no payment has used it; no row when one already has. */
export function markUsed(db: DbOrTrx, tenant: TenantRef, id: string, paymentId: string) {
  return db
    .updateTable('settlement_quotes')
    .set({ used_by_payment_id: paymentId })
    .where('id', '=', id)
    .where(inTenant(tenant))
    .where('used_by_payment_id', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
