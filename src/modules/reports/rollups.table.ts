import type { Generated } from 'kysely';
import type { Mode } from '../../lib/tenant.js';

/**
 * Where a rollup's totals come from: ledger entries (by entry type), recorded payments (by method), what open
 * obligations still owe (by due date: their slot is the date, their kind ''), or how many plans and customers
 * have each status (their kind the status, slot and currency '').
 */
export type RollupSource = 'ledger' | 'payments' | 'obligations' | 'plans' | 'customers';

/**
 * Maintained report totals: per tenant, source, UTC quarter hour (`slot`), currency and kind, the sum and count
 * of the rows folded in. Ledger entries, payments and what obligations owe come in through `rollup_deltas`; plans
 * and customers are marked on the rows (`tracks.rolled_status`, `customers.rolled_status`), set in the
 * transaction that counts them.
 */
export interface ReportRollupsTable {
  workspace_id: string;
  mode: Mode;
  source: RollupSource;
  slot: string;
  currency: string;
  /** A ledger entry type (with `~no_plan` for entries without a plan), a payment method, or a status. */
  kind: string;
  amount: number;
  count: number;
}

/**
 * What ledger entries, payments and obligations add to the rollup and is not folded in yet: a row per ledger
 * entry, per change of a payment into or out of `recorded` (amount and count negative), and per change of what an
 * obligation owes (its slot the due date, its kind ''), written by triggers in the statement that writes the row
 * (migration 0039). The rollup sweep sums them into `report_rollups` and
 * deletes them in one transaction, so a report read in one snapshot counts each exactly once.
 */
export interface RollupDeltasTable extends ReportRollupsTable {
  id: Generated<number | string>;
  source: 'ledger' | 'payments' | 'obligations';
}

declare module '../../db/schema.js' {
  interface Database {
    report_rollups: ReportRollupsTable;
    rollup_deltas: RollupDeltasTable;
  }
}
