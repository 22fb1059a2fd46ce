import type { Mode } from '../api-keys/api-keys.table.js';

export type LedgerEntryType =
  | 'plan.charged'
  | 'plan.adjusted'
  | 'payment.recorded'
  | 'obligation.created'
  | 'obligation.paid'
  | 'collection.succeeded'
  | 'collection.failed'
  | 'mandate.activated'
  | 'mandate.revoked';

/** Append-only: rows are inserted, never updated or deleted. */
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
