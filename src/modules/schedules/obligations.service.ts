import type { AppContext } from '../../context.js';
import { fieldError } from '../../lib/app-error.js';
import { type Page, paginateByKey } from '../../lib/cursor.js';
import type { Tenant } from '../../lib/tenant.js';
import { statusAt } from './obligations.overdue.js';
import * as obligations from './obligations.repository.js';
import { obligationToApi } from './schedules.mapper.js';
import type { ObligationListItem, ObligationsQuery } from './schedules.schemas.js';
import { type ObligationsTable, OPEN_OBLIGATION } from './schedules.table.js';

// Reads other modules make of obligations.
export {
  countAskedOfSchedule,
  findByCheckout as findObligationByCheckout,
  findByCheckoutAnywhere as findObligationByCheckoutAnywhere,
  findById as findObligation,
} from './obligations.repository.js';

const DUE_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * `GET /obligations`: the workspace's obligations across its schedules, what falls due first first, each with its
 * plan's customer and what it still asks. Statuses are those of the request's instant on the tenant's clock.
 */
export async function listAllObligations(
  ctx: AppContext,
  tenant: Tenant,
  query: ObligationsQuery,
): Promise<Page<ObligationListItem>> {
  if (query.due_from && query.due_to && query.due_from > query.due_to) {
    throw fieldError({ due_from: 'must not be after due_to' });
  }
  const at = tenant.clock.now().toISOString();
  return paginateByKey<ObligationsTable, ObligationListItem>(
    query,
    'obligation',
    DUE_DATE,
    (row) => row.due_date,
    (limit, after) => obligations.listByDueDate(ctx.db, ctx.dialect, tenant, query, at, after, limit),
    async (rows) => {
      const trackIds = [...new Set(rows.flatMap((r) => (r.track_id ? [r.track_id] : [])))];
      const customers = await obligations.customersOfTracks(ctx.db, tenant, trackIds);
      return rows.map((row) => ({
        ...obligationToApi(row, at),
        customer_id: row.track_id ? (customers.get(row.track_id) ?? null) : null,
        amount_due: OPEN_OBLIGATION.includes(statusAt(row, at)) ? row.amount - row.amount_paid : 0,
      }));
    },
  );
}
