import type { Static, TSchema } from 'typebox';
import type { DbOrTrx } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { Job } from './job.js';
import type { JobsTable } from './jobs.table.js';

export interface EnqueueOptions {
  runAt?: Date;
  /** The job key: a second job with the same key is not added while the first exists. */
  key?: string;
  maxAttempts?: number;
}

/** The row of a new job. */
export function jobRow<S extends TSchema, R, L>(
  now: Date,
  job: Job<S, R, L>,
  payload: Static<S>,
  options: EnqueueOptions,
): JobsTable {
  return {
    id: newId('job', now),
    name: job.name,
    payload: JSON.stringify(payload),
    status: 'pending',
    attempts: 0,
    max_attempts: options.maxAttempts ?? 0,
    run_at: (options.runAt ?? now).toISOString(),
    locked_by: null,
    locked_until: null,
    last_error: null,
    group_key: job.group ? job.group(payload) : null,
    dedupe_key: options.key ?? null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
}

/**
 * Adds jobs in the caller's transaction, so they exist exactly when the change that caused them does.
 * Jobs run on infrastructure time (`clock` is the app's clock, never a tenant's test clock).
 */
export async function enqueueMany<S extends TSchema, R, L>(
  trx: DbOrTrx,
  clock: Clock,
  job: Job<S, R, L>,
  payloads: readonly Static<S>[],
  options: EnqueueOptions = {},
): Promise<void> {
  if (payloads.length === 0) return;
  const now = clock.now();
  let insert = trx.insertInto('jobs').values(payloads.map((payload) => jobRow(now, job, payload, options)));
  if (options.key) insert = insert.onConflict((oc) => oc.column('dedupe_key').doNothing());
  await insert.execute();
}

export function enqueue<S extends TSchema, R, L>(
  trx: DbOrTrx,
  clock: Clock,
  job: Job<S, R, L>,
  payload: Static<S>,
  options: EnqueueOptions = {},
): Promise<void> {
  return enqueueMany(trx, clock, job, [payload], options);
}
