import type { FastifyBaseLogger } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { AppContext } from '../context.js';
import type { Trx } from '../db/schema.js';

export interface JobContext extends AppContext {
  log: FastifyBaseLogger;
  /** Aborted when the worker loses the job's lease or stops: stop what can be stopped. */
  signal: AbortSignal;
}

export interface RunningJob {
  id: string;
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
  /**
   * The previous run was cut off (its worker died or lost the lease) before recording its outcome; whatever
   * it did outside the database may or may not have happened.
   */
  previousRunLost: boolean;
}

/** What a run ends with. Throwing is a failure too, with nothing recorded. */
export interface JobResult<R = never> {
  /** The run failed: retried after the backoff while attempts remain, then kept as failed. */
  error?: string;
  /** When a failed run is retried, if not after the definition's backoff. */
  retryAt?: Date;
  /**
   * The run did one share of a larger piece of work and succeeded: the job runs again at this time (other due
   * jobs are claimed first), its failed attempts counted from zero again.
   */
  rerunAt?: Date;
  /**
   * Rows the run leaves (a delivery attempt, say), written by the definition's `writeRecords` in the
   * transaction that completes or reschedules the job, so the job's state and its records agree.
   */
  records?: readonly R[];
}

/** One kind of background work. Handlers must be idempotent: a job can run again after a crash. */
export interface JobDefinition<S extends TSchema = TSchema, R = never, L = undefined> {
  name: string;
  payload: S;
  maxAttempts: number;
  /** Milliseconds to wait after the given failed attempt (1-based) before the next one. */
  backoffMs(attempt: number): number;
  /** Jobs of the same group run at most `groupConcurrency` at a time, so one slow group holds back no other. */
  group?(payload: Static<S>): string;
  groupConcurrency?: number;
  /** A recurring job: after each successful run it is due again this many milliseconds later. */
  repeatEveryMs?(payload: Static<S>): number;
  /**
   * Fetches what the runs of a batch of these jobs need, for all of them at once (one query for many jobs);
   * returns one value per payload, in order. Each run gets its own as `loaded`.
   */
  load?(ctx: AppContext, payloads: readonly Static<S>[]): Promise<readonly L[]>;
  run(ctx: JobContext, payload: Static<S>, job: RunningJob, loaded: L): Promise<JobResult<R> | undefined>;
  /** Writes the records of every run that ended together, at once. */
  writeRecords?(trx: Trx, records: readonly R[]): Promise<unknown>;
}

/** A job definition with its payload parser compiled. */
export interface Job<S extends TSchema = TSchema, R = never, L = undefined> extends JobDefinition<S, R, L> {
  /** Checks a stored payload; throws when it is not one this job understands. */
  parse(payload: unknown): Static<S>;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds jobs of every payload type
export type AnyJob = Job<any, any, any>;

export function defineJob<S extends TSchema, R = never, L = undefined>(
  definition: JobDefinition<S, R, L>,
): Job<S, R, L> {
  const validator = Compile(definition.payload);
  return {
    ...definition,
    parse(payload) {
      if (!validator.Check(payload)) {
        const [first] = validator.Errors(payload);
        throw new Error(`payload of ${definition.name} is not valid: ${first?.message ?? 'unknown problem'}`);
      }
      return payload as Static<S>;
    },
  };
}

/** Exponential backoff: 10 s, 20 s, 40 s … capped at an hour. */
export function exponentialBackoff(attempt: number): number {
  return Math.min(10_000 * 2 ** (attempt - 1), 3_600_000);
}
