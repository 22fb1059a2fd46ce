import { setTimeout as sleep } from 'node:timers/promises';
import type { DialectName } from '../../db/dialect.js';
import type { Trx } from '../../db/schema.js';
import type { TenantGroup } from '../../db/scoping.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { eachDueBatch, limitReached } from '../../jobs/sweep-batches.js';
import type { SweepDefinition } from '../../jobs/sweeps.js';
import { FOLD_BATCH, foldLedgerEntries, foldObligations, foldPayments } from './rollups.folds.js';
import { foldStatuses } from './rollups.statuses.js';

type Fold = (trx: Trx, dialect: DialectName, group: TenantGroup, limit: number) => Promise<number>;

const FOLDS: Fold[] = [
  foldLedgerEntries,
  foldPayments,
  foldObligations,
  (trx, dialect, group, limit) => foldStatuses(trx, dialect, group, limit, 'plans'),
  (trx, dialect, group, limit) => foldStatuses(trx, dialect, group, limit, 'customers'),
];

/**
 * Rows one transaction folds at most. Each fold holds SQLite's write lock (and on PostgreSQL the plan rows whose
 * markers it sets) while it runs, and payments wait for it: folds of 5,000 rows under a steady 250 payments a
 * second put a 27 to 32 ms p99 on them, one fold every ten seconds.
 */
const BATCH = 500;
/** Batches one run folds at most, so a run under a steady stream of payments still ends: 200,000 rows a run. */
const MAX_BATCHES = 400;

/**
 * Folds new ledger entries and payments (and payments reversed since), what open obligations owe, and how many
 * plans and customers have each status into the report rollup, a batch per transaction. Reports stay exact without it (they read what is not folded yet from
 * the rows); it keeps that part small.
 */
export const rollupSweep: SweepDefinition = {
  name: 'reports.rollup',
  everyMs: 10_000,
  async run(ctx, scope) {
    let handled = 0;
    for (const fold of FOLDS) {
      if (limitReached(scope, handled)) return handled;
      const left = scope.limit === undefined ? scope : { ...scope, limit: scope.limit - handled };
      handled += await eachDueBatch(
        left,
        { batch: Math.min(BATCH, FOLD_BATCH), maxBatches: MAX_BATCHES, shrinkToLimit: true },
        async (size) => {
          const started = performance.now();
          const folded = await inTransaction(ctx, null, (trx) => fold(trx, ctx.dialect, scope, size), {
            patient: true,
          });
          // As long again without the lock: requests waiting for it get their turn before the next batch.
          if (folded === size) await sleep(performance.now() - started);
          return { found: folded, handled: folded };
        },
      );
    }
    return handled;
  },
  bookkeeping: true,
};
