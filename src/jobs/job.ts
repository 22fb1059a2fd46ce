import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.js';

export interface JobContext extends AppContext {
  log: FastifyBaseLogger;
}

export interface RunningJob {
  id: string;
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
}

/** One kind of background work. Handlers must be idempotent: a job can run again after a crash. */
export interface JobDefinition<P> {
  maxAttempts: number;
  /** Milliseconds to wait after the given failed attempt (1-based) before the next one. */
  backoffMs(attempt: number): number;
  /** Checks a stored payload; throws when it is not one this job understands. */
  parse(payload: unknown): P;
  run(ctx: JobContext, payload: P, job: RunningJob): Promise<void>;
}

export function defineJob<P>(definition: JobDefinition<P>): JobDefinition<P> {
  return definition;
}

/** Exponential backoff: 10 s, 20 s, 40 s … capped at an hour. */
export function exponentialBackoff(attempt: number): number {
  return Math.min(10_000 * 2 ** (attempt - 1), 3_600_000);
}
