import type { DbOrTrx } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { JobName, JobPayload } from './catalog.js';

export interface EnqueueOptions {
  runAt?: Date;
  /** A second job with the same key is not added. */
  dedupeKey?: string;
  maxAttempts?: number;
}

/** Adds a job in the caller's transaction, so it exists exactly when the change that caused it does. */
export async function enqueue<N extends JobName>(
  trx: DbOrTrx,
  clock: Clock,
  name: N,
  payload: JobPayload<N>,
  options: EnqueueOptions = {},
): Promise<void> {
  const now = clock.now().toISOString();
  let insert = trx.insertInto('jobs').values({
    id: newId('job'),
    name,
    payload: JSON.stringify(payload),
    status: 'pending',
    attempts: 0,
    max_attempts: options.maxAttempts ?? 0,
    run_at: (options.runAt ?? clock.now()).toISOString(),
    locked_until: null,
    last_error: null,
    dedupe_key: options.dedupeKey ?? null,
    created_at: now,
    updated_at: now,
  });
  if (options.dedupeKey) insert = insert.onConflict((oc) => oc.column('dedupe_key').doNothing());
  await insert.execute();
}
