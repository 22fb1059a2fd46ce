import { sql } from 'kysely';
import type { Trx } from '../../db/schema.js';
import type { PaymentStatus } from './payments.table.js';

/**
 * Marks payments as counted by the reports' rollup with `status` (`rolled_status`), in the transaction that folds
 * them; only those still of that status are marked. Returns how many it marked.
 */
export async function markPaymentsRolled(
  trx: Trx,
  status: PaymentStatus,
  ids: readonly string[],
): Promise<number> {
  const result =
    await sql`update payments set rolled_status = ${status} where status = ${status} and id in (${sql.join(ids)})`.execute(
      trx,
    );
  return Number(result.numAffectedRows ?? 0n);
}
