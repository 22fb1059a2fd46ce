import type { AppContext } from '../../context.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { fieldError } from '../../lib/app-error.js';
import { type Page, paginateByKey } from '../../lib/cursor.js';
import type { Tenant } from '../../lib/tenant.js';
import { waiveFee } from '../../money/index.js';
import { statusAt } from './obligations.overdue.js';
import * as obligations from './obligations.repository.js';
import { obligationToApi } from './schedules.mapper.js';
import type { FeeWaiver, Obligation, ObligationListItem, ObligationsQuery } from './schedules.schemas.js';
import { type ObligationsTable, OPEN_OBLIGATION } from './schedules.table.js';

// Reads other modules make of obligations.
export {
  countAskedOfSchedule,
  findByCheckout as findObligationByCheckout,
  findByCheckoutAnywhere as findObligationByCheckoutAnywhere,
  findById as findObligation,
} from './obligations.repository.js';

const DUE_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** What a plan's open obligations ask on a day: all that fell due up to it, and the first falling due after. */
export interface DueOfPlan {
  /** What the open obligations due on or before the day still ask (0 when none). */
  dueNow: number;
  /** What the first open obligation due after the day still asks; null when none is. */
  next: { amount: number; dueDate: string } | null;
}

/** `today`: a calendar date in the workspace's zone, as due dates are. */
export async function dueOfPlan(db: DbOrTrx, trackId: string, today: string): Promise<DueOfPlan> {
  const open = await obligations.openDueOfTrack(db, trackId);
  let dueNow = 0;
  for (const o of open) if (o.due_date <= today) dueNow += o.amount - o.amount_paid;
  const later = open.find((o) => o.due_date > today);
  return {
    dueNow,
    next: later ? { amount: later.amount - later.amount_paid, dueDate: later.due_date } : null,
  };
}

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

/** `POST /obligations/{id}/waive`: an open fee let go, the plan's amount and balance lowered by what it still asked. */
export async function waiveObligation(
  ctx: AppContext,
  tenant: Tenant,
  id: string,
  input: FeeWaiver,
): Promise<Obligation> {
  // Mapped inside the transaction: what it returns is what an Idempotency-Key keeps as the response.
  return inTransaction(ctx, tenant, async (trx) =>
    obligationToApi(await waiveFee(trx, tenant, id, input.reason), tenant.clock.now().toISOString()),
  );
}
