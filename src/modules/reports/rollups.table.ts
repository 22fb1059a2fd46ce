import type { Mode } from '../../lib/tenant.js';

/**
 * Where a rollup's totals come from: ledger entries (by entry type), recorded payments (by method), what open
 * obligations still owe (by due date: their slot is the date, their kind ''), or how many plans and customers
 * have each status (their kind the status, slot and currency '').
 */
export type RollupSource = 'ledger' | 'payments' | 'obligations' | 'plans' | 'customers';

/**
 * Maintained report totals: per tenant, source, UTC quarter hour (`slot`), currency and kind, the sum and count
 * of the rows folded in. Which rows are in it is marked on the rows (`ledger_entries.rolled_up`,
 * `payments.rolled_status`, `obligations.rolled_owed`, `tracks.rolled_status`, `customers.rolled_status`), set in
 * the transaction that folds them.
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

declare module '../../db/schema.js' {
  interface Database {
    report_rollups: ReportRollupsTable;
  }
}
