import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';
import type { SweepScope } from '../clock/sweep-scope.js';
import { sweepScopes } from '../clock/tenant-clocks.js';
import type { AppContext, SweepDefinition } from '../context.js';

export type { SweepScope } from '../clock/sweep-scope.js';
export type { SweepDefinition } from '../context.js';

import type { Clock } from '../lib/clock.js';
import { defineJob, exponentialBackoff } from './job.js';
import { jobRow } from './queue.js';

/** The earliest of stored instants (ISO text from both databases), as a Date; null when there is none. */
export function earliest(...instants: readonly (string | null | undefined)[]): Date | null {
  let first: number | null = null;
  for (const instant of instants) {
    if (instant === null || instant === undefined) continue;
    const ms = Date.parse(instant);
    if (first === null || ms < first) first = ms;
  }
  return first === null ? null : new Date(first);
}

export { limitReached } from './sweep-batches.js';

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
    const handled: Record<string, number> = {};
    for (const scope of await sweepScopes(ctx.db, ctx.clock)) await runFeeding(ctx, sweep, scope, handled);
    if (Object.values(handled).some((n) => n > 0)) {
      ctx.log.info({ sweep: name, handled }, 'sweep handled due records');
    }
    return undefined;
  },
});

/** Runs a sweep on a scope and, when it handled something, the sweeps it feeds (and theirs) on the same scope. */
async function runFeeding(
  ctx: AppContext & { log?: FastifyBaseLogger },
  sweep: SweepDefinition,
  scope: SweepScope,
  handled: Record<string, number>,
  seen: ReadonlySet<string> = new Set(),
): Promise<void> {
  const n = await sweep.run(ctx, scope);
  handled[sweep.name] = (handled[sweep.name] ?? 0) + n;
  if (n === 0) return;
  const path = new Set([...seen, sweep.name]);
  for (const name of sweep.feeds ?? []) {
    const fed = ctx.registry.sweeps.find((candidate) => candidate.name === name);
    if (fed && !path.has(name)) await runFeeding(ctx, fed, scope, handled, path);
  }
}

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
export function runSweepsWithin(
  ctx: AppContext,
  scope: SweepScope,
  budget = Number.POSITIVE_INFINITY,
): Promise<SweepsRun> {
  return runPasses(ctx, ctx.registry.sweeps, scope, budget);
}

async function runPasses(
  ctx: AppContext,
  sweeps: readonly SweepDefinition[],
  scope: SweepScope,
  budget: number,
): Promise<SweepsRun> {
  const ran: Record<string, number> = Object.fromEntries(ctx.registry.sweeps.map((s) => [s.name, 0]));
  let total = 0;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let handled = 0;
    for (const sweep of sweeps) {
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

/**
 * Runs the sweeps named in `due` on one scope, in the registry's order, and with them the sweeps fed by one that
 * handled something (in a next pass when they come earlier in the order), within `budget` as `runSweepsWithin`.
 */
async function runDue(
  ctx: AppContext,
  due: ReadonlySet<string>,
  scope: SweepScope,
  budget: number,
): Promise<SweepsRun> {
  const ran: Record<string, number> = Object.fromEntries(ctx.registry.sweeps.map((s) => [s.name, 0]));
  const order = ctx.registry.sweeps.map((sweep) => sweep.name);
  let total = 0;
  let pending = new Set(due);
  for (let pass = 0; pass < MAX_PASSES && pending.size > 0; pass++) {
    const thisPass = pending;
    pending = new Set();
    for (const [index, sweep] of ctx.registry.sweeps.entries()) {
      if (!thisPass.has(sweep.name)) continue;
      if (total >= budget) return { ran, done: false };
      const n = await sweep.run(ctx, Number.isFinite(budget) ? { ...scope, limit: budget - total } : scope);
      ran[sweep.name] = (ran[sweep.name] ?? 0) + n;
      total += n;
      if (n === 0) continue;
      for (const fed of sweep.feeds ?? []) (order.indexOf(fed) > index ? thisPass : pending).add(fed);
    }
  }
  return { ran, done: true };
}

/** One workspace's mode, swept on a time of its own (a test clock's advance). */
export type SweptTenant = Pick<SweepScope, 'mode' | 'workspaceId'>;

export interface SweepsThrough extends SweepsRun {
  /**
   * The instant the run got to: `to` when done; otherwise the step whose work the budget left unfinished, from
   * which the next run goes on.
   */
  reached: Date;
}

/** For each sweep that knows when its work falls due, the earliest instant after `scope.now` it has work at. */
async function nextDueOfEach(ctx: AppContext, scope: SweepScope): Promise<Map<string, number>> {
  const timed = ctx.registry.sweeps.filter((sweep) => sweep.nextDueAfter);
  const instants = await Promise.all(timed.map((sweep) => sweep.nextDueAfter?.(ctx, scope)));
  const next = new Map<string, number>();
  for (const [i, sweep] of timed.entries()) {
    const at = instants[i]?.getTime();
    if (at !== undefined && at > scope.now.getTime()) next.set(sweep.name, at);
  }
  return next;
}

/**
 * Steps a tenant through time from `from` to `to`, as a worker running at every instant on the way would: at
 * each instant where something falls due (`nextDueAfter`), in order, the sweeps due then run as of that instant,
 * with the sweeps they feed, so each record is handled at its own time and the work one step makes (an attempt,
 * a retry, a reminder) is done at its own instant too. The first step runs every sweep but bookkeeping until a
 * whole pass finds nothing more (what changed since the last sweep, and work no instant announces), the last
 * step every sweep. At most `budget` records in all: when it runs out, the run stops and says which step to go
 * on from (a next run starts there, as its first step).
 */
export async function runSweepsThrough(
  ctx: AppContext,
  tenant: SweptTenant,
  from: Date,
  to: Date,
  budget = Number.POSITIVE_INFINITY,
): Promise<SweepsThrough> {
  const ran: Record<string, number> = Object.fromEntries(ctx.registry.sweeps.map((s) => [s.name, 0]));
  const onTheWay = ctx.registry.sweeps.filter((sweep) => !sweep.bookkeeping);
  let total = 0;
  let at = from.getTime() < to.getTime() ? from : to;
  /** The sweeps due at `at`; null on the first step, which runs them all. */
  let due: ReadonlySet<string> | null = null;
  for (;;) {
    const last = at.getTime() >= to.getTime();
    const scope: SweepScope = { ...tenant, now: at };
    const left = budget - total;
    const step = last
      ? await runPasses(ctx, ctx.registry.sweeps, scope, left)
      : due === null
        ? await runPasses(ctx, onTheWay, scope, left)
        : await runDue(ctx, due, scope, left);
    for (const [name, n] of Object.entries(step.ran)) {
      ran[name] = (ran[name] ?? 0) + n;
      total += n;
    }
    if (!step.done) return { ran, done: false, reached: at };
    if (last) return { ran, done: true, reached: to };
    const next = await nextDueOfEach(ctx, scope);
    const nextAt = Math.min(to.getTime(), ...next.values());
    at = new Date(nextAt);
    due = new Set([...next].filter(([, ms]) => ms === nextAt).map(([name]) => name));
  }
}
