import { sql } from 'kysely';
import { type DialectName, forUpdateSkipLocked } from '../../db/dialect.js';
import type { Trx } from '../../db/schema.js';
import { inTenantGroup, type TenantGroup } from '../../db/scoping.js';
import { addExact, toSafeInteger } from '../../lib/money.js';
import type { ReportRollupsTable } from './rollups.table.js';

/** The rows one fold takes at most: its ids fit in one statement on both databases. */
export const FOLD_BATCH = 5000;

export type RollupRow = ReportRollupsTable;

export function addTo(rollup: Map<string, RollupRow>, row: RollupRow) {
  const key = [row.workspace_id, row.mode, row.source, row.slot, row.currency, row.kind].join('\u0000');
  const found = rollup.get(key);
  if (found) {
    found.amount = addExact(found.amount, row.amount);
    found.count = addExact(found.count, row.count);
  } else rollup.set(key, { ...row });
}

/** Adds tallies to the rollup, in key order (two folds at once take row locks in the same order). */
export async function addToRollup(trx: Trx, rollup: Map<string, RollupRow>) {
  const rows = [...rollup.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  for (let i = 0; i < rows.length; i += 2000) {
    await trx
      .insertInto('report_rollups')
      .values(rows.slice(i, i + 2000))
      .onConflict((oc) =>
        oc.columns(['workspace_id', 'mode', 'source', 'slot', 'currency', 'kind']).doUpdateSet({
          amount: sql`report_rollups.amount + excluded.amount`,
          count: sql`report_rollups.count + excluded.count`,
        }),
      )
      .execute();
  }
}

/**
 * Ends a fold: every row taken must have been marked (they are locked, so a shortfall means something changed
 * them: the transaction rolls back), then their tallies go into the rollup.
 */
async function settle(trx: Trx, rollup: Map<string, RollupRow>, marked: number, taken: number, what: string) {
  if (marked !== taken) throw new Error(`${what} changed while folded: ${marked} of ${taken} marked`);
  await addToRollup(trx, rollup);
  return taken;
}

/**
 * Folds up to `limit` deltas of ledger entries and payments into the rollup and deletes them; returns how many.
 * PostgreSQL: deltas another fold holds are skipped, and deleting them takes no index entry from a hot row.
 */
export async function foldDeltas(trx: Trx, dialect: DialectName, group: TenantGroup, limit: number) {
  const rows = await forUpdateSkipLocked(
    dialect,
    trx
      .selectFrom('rollup_deltas')
      .select(['id', 'workspace_id', 'mode', 'source', 'slot', 'currency', 'kind', 'amount', 'count'])
      .where(inTenantGroup(group))
      .orderBy('id')
      .limit(limit),
  ).execute();
  if (rows.length === 0) return 0;
  const rollup = new Map<string, RollupRow>();
  for (const { id: _id, ...row } of rows) {
    addTo(rollup, { ...row, amount: toSafeInteger(row.amount), count: toSafeInteger(row.count) });
  }
  const deleted = await trx
    .deleteFrom('rollup_deltas')
    .where(
      'id',
      'in',
      rows.map((row) => row.id),
    )
    .executeTakeFirst();
  return settle(trx, rollup, Number(deleted.numDeletedRows), rows.length, 'rollup deltas');
}
