import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { sweepScopes } from '../clock/tenant-clocks.js';
import type { AppContext } from '../context.js';
import type { Clock } from '../lib/clock.js';
import type { Mode } from '../lib/tenant.js';
import { defineJob, exponentialBackoff } from './job.js';
import { jobRow } from './queue.js';

/**
 * A group of tenants that share one time: every live tenant, every test tenant whose clock was never moved,
 * or one workspace's test mode on its moved test clock.
 */
export interface SweepScope {
  mode: Mode;
  now: Date;
  /** Only this workspace. */
  workspaceId?: string;
  /** Every workspace of the mode but these (their test clocks were moved; each is a scope of its own). */
  exceptWorkspaceIds?: readonly string[];
  /**
   * The most records the caller wants this run to handle (what is left of a test clock advance's budget): a sweep
   * may stop once it has handled that many, and is run again. Without it, or in a sweep that does not read it,
   * a run handles everything due.
   */
  limit?: number;
}

/**
 * Time-driven work: records that are due by their tenant's clock (obligations falling due, retries, reminders,
 * expiries). Repeated by the worker on every scope, and run at once for a workspace by its test clock's advance.
 */
export interface SweepDefinition {
  name: string;
  everyMs: number;
  /**
   * Handles what is due in the scope at `scope.now`; returns how many records it handled. `log` is there when
   * the worker runs it (a test clock's advance runs it without).
   */
  run(ctx: AppContext & { log?: FastifyBaseLogger }, scope: SweepScope): Promise<number>;
}

/** Whether a sweep that has handled `handled` records has done what its caller asked for (`scope.limit`). */
export function limitReached(scope: SweepScope, handled: number): boolean {
  return scope.limit !== undefined && handled >= scope.limit;
}

/** One sweep over every scope, repeated; one job per sweep (its key), so workers never run a sweep twice at once. */
export const sweepJob = defineJob({
  name: 'sweeps.run',
  payload: Type.Object({ sweep: Type.String(), everyMs: Type.Integer({ minimum: 1 }) }),
  maxAttempts: 1,
  backoffMs: exponentialBackoff,
  group: ({ sweep }) => `sweep:${sweep}`,
  groupConcurrency: 1,
  repeatEveryMs: ({ everyMs }) => everyMs,
  async run(ctx, { sweep: name }) {
    const sweep = ctx.registry.sweeps.find((candidate) => candidate.name === name);
    if (!sweep) return { error: `no sweep named ${name} in this version` };
    let handled = 0;
    for (const scope of await sweepScopes(ctx.db, ctx.clock)) handled += await sweep.run(ctx, scope);
    if (handled > 0) ctx.log.info({ sweep: name, handled }, 'sweep handled due records');
    return undefined;
  },
});

/**
 * Makes sure each sweep has its recurring job (once, whatever the number of workers starting together), with
 * this version's interval; a sweep job left failed by a version that did not know it is pending again.
 */
export async function scheduleSweeps(ctx: AppContext, clock: Clock): Promise<void> {
  const now = clock.now();
  for (const sweep of ctx.registry.sweeps) {
    const row = jobRow(
      now,
      sweepJob,
      { sweep: sweep.name, everyMs: sweep.everyMs },
      { key: `sweep:${sweep.name}` },
    );
    await ctx.db
      .insertInto('jobs')
      .values(row)
      .onConflict((oc) =>
        oc.column('dedupe_key').doUpdateSet({
          payload: row.payload,
          status: sql`case when jobs.status = 'failed' then 'pending' else jobs.status end`,
          run_at: sql`case when jobs.status = 'failed' then ${row.run_at} else jobs.run_at end`,
        }),
      )
      .execute();
  }
}

const MAX_PASSES = 10;

export interface SweepsRun {
  /** How many records each sweep handled. */
  ran: Record<string, number>;
  /** A whole pass found nothing more; false when the budget ran out first. */
  done: boolean;
}

/**
 * Runs every sweep on one scope until a whole pass finds nothing more (one sweep's work can make another's
 * due), or until `budget` records were handled: then it stops before the next sweep and says it is not done.
 * The budget is checked between sweeps, and each run is asked for no more than what is left of it (`limit`).
 */
export async function runSweepsWithin(
  ctx: AppContext,
  scope: SweepScope,
  budget = Number.POSITIVE_INFINITY,
): Promise<SweepsRun> {
  const ran: Record<string, number> = Object.fromEntries(ctx.registry.sweeps.map((s) => [s.name, 0]));
  let total = 0;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let handled = 0;
    for (const sweep of ctx.registry.sweeps) {
      if (total >= budget) return { ran, done: false };
      const n = await sweep.run(ctx, Number.isFinite(budget) ? { ...scope, limit: budget - total } : scope);
      ran[sweep.name] = (ran[sweep.name] ?? 0) + n;
      handled += n;
      total += n;
    }
    if (handled === 0) break;
  }
  return { ran, done: true };
}

/** Runs every sweep on one scope until a whole pass finds nothing more; returns how many records each handled. */
export async function runSweepsNow(ctx: AppContext, scope: SweepScope): Promise<Record<string, number>> {
  return (await runSweepsWithin(ctx, scope)).ran;
}
