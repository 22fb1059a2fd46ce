import type { LedgerEntry } from './ledger.schemas.js';
import type { LedgerEntriesTable } from './ledger.table.js';

/** The columns a ledger entry's wire form is made of: a read that only shows entries selects just these. */
export const LEDGER_ENTRY_COLUMNS = [
  'id',
  'type',
  'track_id',
  'customer_id',
  'amount',
  'balance_after',
  'currency',
  'occurred_at',
  'refs',
] as const;
export type LedgerEntryRow = Pick<LedgerEntriesTable, (typeof LEDGER_ENTRY_COLUMNS)[number]>;

/** A ledger entry with its wire names: as the API lists it, and as exports write its columns. */
export function toApi(row: LedgerEntryRow): LedgerEntry {
  return {
    id: row.id,
    type: row.type,
    trackId: row.track_id,
    customerId: row.customer_id,
    amount: row.amount,
    balanceAfter: row.balance_after,
    currency: row.currency,
    occurredAt: row.occurred_at,
    refs: JSON.parse(row.refs) as Record<string, string>,
  };
}
