import { sql } from 'kysely';
import type { Trx } from '../../db/schema.js';

/**
 * Marks plans as counted by the reports' rollup with `status` (`rolled_status`), in the transaction that counts
 * them; only those still of that status and still marked `rolledStatus` (as they were read) are marked. Returns
 * how many it marked.
 */
export async function markTracksRolled(
  trx: Trx,
  status: string,
  rolledStatus: string,
  ids: readonly string[],
): Promise<number> {
  // The table name stays quoted as the rollup has always written it: its statements keep their exact text.
  const result =
    await sql`update "tracks" set rolled_status = ${status} where status = ${status} and rolled_status = ${rolledStatus} and id in (${sql.join(ids)})`.execute(
      trx,
    );
  return Number(result.numAffectedRows ?? 0n);
}
