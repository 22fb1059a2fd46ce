import type { Mode } from '../../lib/tenant.js';
import type { LEDGER_ENTRY_TYPES } from './ledger.schemas.js';

export type LedgerEntryType = (typeof LEDGER_ENTRY_TYPES)[number];

/**
 * Append-only: rows are inserted, never deleted, and what they record never changes. The table also has
 * `rolled_up` (0, then 1 once the reports' rollup has counted the entry), which only the rollup reads, and sets
 * through `markLedgerEntriesRolledUp`.
 */
export interface LedgerEntriesTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  type: LedgerEntryType;
  track_id: string | null;
  customer_id: string | null;
  /** Signed change to the plan's balance: positive charges, negative payments. */
  amount: number;
  balance_after: number | null;
  currency: string;
  occurred_at: string;
  /** JSON object of related ids, e.g. `{"paymentId":"pay_..."}`. */
  refs: string;
  created_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    ledger_entries: LedgerEntriesTable;
  }
}
