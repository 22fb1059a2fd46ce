import type { Mode } from '../../lib/tenant.js';

/**
 * Where a rollup's totals come from: ledger entries (by entry type), recorded payments (by method), or what open
 * obligations still owe (by due date: their slot is the date, their kind '').
 */
export type RollupSource = 'ledger' | 'payments' | 'obligations';

/**
 * Maintained report totals: per tenant, source, UTC quarter hour (`slot`), currency and kind, the sum and count
 * of the rows folded in. Which rows are in it is marked on the rows (`ledger_entries.rolled_up`,
 * `payments.rolled_status`), set in the transaction that folds them.
 */
export interface ReportRollupsTable {
  workspace_id: string;
  mode: Mode;
  source: RollupSource;
  slot: string;
  currency: string;
  /** A ledger entry type (with `~no_plan` for entries without a plan), or a payment method. */
  kind: string;
  amount: number;
  count: number;
}

declare module '../../db/schema.js' {
  interface Database {
    report_rollups: ReportRollupsTable;
  }
}
