import type { SweepScope } from '../clock/sweep-scope.js';

/** Whether a sweep that has handled `handled` records has done what its caller asked for (`scope.limit`). */
export function limitReached(scope: SweepScope, handled: number): boolean {
  return scope.limit !== undefined && handled >= scope.limit;
}

export interface DueRecords<T> {
  /** Records read at most at a time. */
  batch: number;
  /** Reads up to `limit` due records, oldest due first. */
  read(limit: number): Promise<readonly T[]>;
  /** Handles one record; true (or a count) for what it did. */
  handle(found: T): Promise<boolean | number>;
  /**
   * For records a failed handling leaves due (retried on a later run): each is handled once a run, and a batch of
   * only records met before ends the run.
   */
  idOf?(found: T): string;
  /** Batches a run reads at most (one, for work tried again a batch a run); unbounded without it. */
  maxBatches?: number;
}

/**
 * The batch loop of a sweep that handles due records one at a time: reads a batch, handles each until the
 * caller's limit (`scope.limit`) is reached, and reads again while batches come back full. Returns how many it
 * handled.
 */
export async function eachDue<T>(scope: SweepScope, due: DueRecords<T>): Promise<number> {
  let handled = 0;
  const seen = new Set<string>();
  for (let batches = 1; ; batches++) {
    let found = await due.read(due.batch);
    const idOf = due.idOf;
    if (idOf) found = found.filter((record) => !seen.has(idOf(record)));
    for (const record of found) {
      if (limitReached(scope, handled)) return handled;
      if (idOf) seen.add(idOf(record));
      handled += Number(await due.handle(record));
    }
    if (found.length < due.batch || batches === due.maxBatches) return handled;
  }
}

/**
 * The batch loop of a sweep that handles a batch at a time (in one transaction, say): runs `handleBatch` until a
 * batch finds fewer than it could, the caller's limit is reached or `maxBatches` ran. `handleBatch` gets the size
 * to read (the batch, or what is left of the limit when `shrinkToLimit`) and says how many records it found and
 * handled.
 */
export async function eachDueBatch(
  scope: SweepScope,
  options: { batch: number; maxBatches?: number; shrinkToLimit?: boolean },
  handleBatch: (size: number) => Promise<{ found: number; handled: number }>,
): Promise<number> {
  let handled = 0;
  for (let run = 0; run < (options.maxBatches ?? Number.POSITIVE_INFINITY); run++) {
    if (options.shrinkToLimit && limitReached(scope, handled)) break;
    const size =
      options.shrinkToLimit && scope.limit !== undefined
        ? Math.min(options.batch, scope.limit - handled)
        : options.batch;
    const batch = await handleBatch(size);
    handled += batch.handled;
    if (batch.found < size || limitReached(scope, handled)) break;
  }
  return handled;
}
