import type { AppContext } from '../../context.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { LedgerListQuery } from '../ledger/ledger.schemas.js';
import { listLedger } from '../ledger/ledger.service.js';
import { getCustomerRow } from './customers.service.js';

/** The customer's ledger entries; a 404 for a customer that is not there. */
export async function listCustomerLedger(
  ctx: AppContext,
  tenant: TenantRef,
  customerId: string,
  query: LedgerListQuery,
) {
  await getCustomerRow(ctx.db, tenant, customerId);
  return listLedger(ctx, tenant, query, { customerId });
}
