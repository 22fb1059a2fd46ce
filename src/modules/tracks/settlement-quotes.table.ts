import type { Mode } from '../../lib/tenant.js';

/** What clears a plan on `as_of`: its balance less the early-settlement discount; used by at most one payment. */
export interface SettlementQuotesTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  track_id: string;
  /** `YYYY-MM-DD` in the workspace's zone. */
  as_of: string;
  amount: number;
  discount: number;
  fees_included: number;
  /** The plan's balance when quoted: a payment with the quote is refused once it has changed. */
  balance_at_quote: number;
  currency: string;
  /** The start of the day after `as_of` in the workspace's zone. */
  valid_until: string;
  used_by_payment_id: string | null;
  created_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    settlement_quotes: SettlementQuotesTable;
  }
}
