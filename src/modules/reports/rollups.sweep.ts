import { inTransaction } from '../../db/unit-of-work.js';
import type { SweepDefinition } from '../../jobs/sweeps.js';
import { FOLD_BATCH, foldLedgerEntries, foldObligations, foldPayments } from './rollups.folds.js';

/** Batches one run folds at most, so a run under a steady stream of payments still ends. */
const MAX_BATCHES = 40;

/**
 * Folds new ledger entries and payments (and payments reversed since), and what open obligations owe, into the
 * report rollup, a batch per transaction. Reports stay exact without it (they read what is not folded yet from
 * the rows); it keeps that part small.
 */
export const rollupSweep: SweepDefinition = {
  name: 'reports.rollup',
  everyMs: 10_000,
  async run(ctx, scope) {
    let handled = 0;
    for (const fold of [foldLedgerEntries, foldPayments, foldObligations]) {
      for (let batch = 0; batch < MAX_BATCHES; batch++) {
        const folded = await inTransaction(ctx, (trx) => fold(trx, ctx.dialect, scope, FOLD_BATCH));
        handled += folded;
        if (folded < FOLD_BATCH) break;
      }
    }
    return handled;
  },
};
