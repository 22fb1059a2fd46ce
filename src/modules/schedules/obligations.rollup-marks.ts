import { sql } from 'kysely';
import type { Trx } from '../../db/schema.js';

/**
 * Marks obligations as counted by the reports' rollup with what each owed when folded (`rolled_owed`), in the
 * transaction that folds them, in one statement; returns how many it marked.
 */
export async function markObligationsRolled(
  trx: Trx,
  folded: readonly { id: string; owed: number }[],
): Promise<number> {
  const owed = sql.join(
    folded.map((o) => sql`when ${o.id} then cast(${o.owed} as bigint)`),
    sql` `,
  );
  const result =
    await sql`update obligations set rolled_owed = case id ${owed} end where id in (${sql.join(folded.map((o) => o.id))})`.execute(
      trx,
    );
  return Number(result.numAffectedRows ?? 0n);
}
