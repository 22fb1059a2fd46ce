import { sql } from 'kysely';
import type { Trx } from '../../db/schema.js';

/**
 * Marks ledger entries as counted by the reports' rollup (`rolled_up` 1), in the transaction that folds them;
 * returns how many it marked (an entry marked already is not).
 */
export async function markLedgerEntriesRolledUp(trx: Trx, ids: readonly string[]): Promise<number> {
  const result =
    await sql`update ledger_entries set rolled_up = 1 where rolled_up = 0 and id in (${sql.join(ids)})`.execute(
      trx,
    );
  return Number(result.numAffectedRows ?? 0n);
}
