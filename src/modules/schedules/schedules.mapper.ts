import { parseMetadata } from '../../lib/json.js';
import { lateFeeOf } from '../../lib/late-fee.js';
import type { VirtualAccount } from '../../ports/payment-providers.js';
import { statusAt } from './obligations.overdue.js';
import { discountOf } from './schedules.discount.js';
import type { ScheduleRow } from './schedules.repository.js';
import type { Obligation, Schedule } from './schedules.schemas.js';
import type { ObligationAllocation, ObligationsTable } from './schedules.table.js';

export function toApi(row: ScheduleRow): Schedule {
  return {
    id: row.id,
    target_type: row.target_type,
    target_id: row.target_id,
    frequency: row.frequency,
    interval: row.interval,
    collection_method: row.collection_method,
    fixed_amount: row.fixed_amount,
    currency: row.currency,
    timezone: row.timezone,
    start_date: row.start_date,
    end_date: row.end_date,
    status: row.status,
    next_due_date: row.next_due_date,
    metadata: parseMetadata(row.metadata),
    virtual_account: row.virtual_account === null ? null : accountOf(row.virtual_account),
    early_settlement_discount: discountOf(row.early_settlement_discount),
    late_fee: lateFeeOf(row.late_fee),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** An obligation as its events carry it: without the list of allocations. */
export function obligationToEvent(row: ObligationsTable): Omit<Obligation, 'allocations'> {
  return {
    id: row.id,
    kind: row.kind,
    fee_of: row.fee_of,
    schedule_id: row.schedule_id,
    track_id: row.track_id,
    due_date: row.due_date,
    amount: row.amount,
    amount_paid: row.amount_paid,
    currency: row.currency,
    status: row.status,
    paid_at: row.paid_at,
    checkout_url: row.checkout_url,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * An obligation as the API shows it at `at`: its status is the one it has then (`statusAt`: overdue once its
 * overdue time has come, even before the overdue sweep has recorded it), so lists filter by what they show.
 */
export function obligationToApi(row: ObligationsTable, at: string): Obligation {
  const { created_at, updated_at, ...rest } = obligationToEvent(row);
  return {
    ...rest,
    status: statusAt(row, at),
    allocations: JSON.parse(row.allocations) as ObligationAllocation[],
    created_at,
    updated_at,
  };
}

/** An obligation an action made or changed, as the action's `changes` list it (`previousAmount` when changed). */
export const obligationChange = (o: ObligationsTable, previousAmount: number | null = null) => ({
  id: o.id,
  due_date: o.due_date,
  amount: o.amount,
  previous_amount: previousAmount,
  status: o.status,
});

/** The account as the API shows it: bank, number and name (the provider that gave it is kept beside them). */
function accountOf(stored: string): VirtualAccount {
  const { bank, number, name } = JSON.parse(stored) as VirtualAccount;
  return { bank, number, name };
}
