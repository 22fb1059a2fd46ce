import { sweepTenant } from '../../clock/tenant-clocks.js';
import { eachDue } from '../../jobs/sweep-batches.js';
import { earliest, type SweepDefinition } from '../../jobs/sweeps.js';
import * as repo from './attempts.repository.js';
import { createFirstAttempt, noteTrouble, runAttempt } from './attempts.service.js';

const BATCH = 200;
/** A charge in flight this long belongs to a worker that stopped: it is charged again, under the same key. */
const STALE_CHARGE_MS = 2 * 60_000;

/** The first attempt of each obligation of an active automatic schedule, once its due date begins. */
export const createAttemptsSweep: SweepDefinition = {
  name: 'attempts.create',
  everyMs: 60_000,
  async run(ctx, scope) {
    const now = scope.now.toISOString();
    return eachDue(scope, {
      batch: BATCH,
      read: (limit) => repo.obligationsToCollect(ctx.db, scope, now, limit),
      handle: (found) => createFirstAttempt(ctx, sweepTenant(scope, found.workspace_id), found.id),
    });
  },
  async nextDueAfter(ctx, scope) {
    return earliest(await repo.nextToCollect(ctx.db, scope, scope.now.toISOString()));
  },
  // The attempt it makes is due at once.
  feeds: ['attempts.run'],
};

/** Attempts whose time has come, blocked ones whose cause may be gone, and charges left in flight. */
export const runAttemptsSweep: SweepDefinition = {
  name: 'attempts.run',
  everyMs: 60_000,
  async run(ctx, scope) {
    const now = scope.now.toISOString();
    const staleBefore = new Date(scope.now.getTime() - STALE_CHARGE_MS).toISOString();
    return eachDue(scope, {
      batch: BATCH,
      read: (limit) => repo.toRun(ctx.db, scope, now, staleBefore, limit),
      idOf: (found) => found.id,
      async handle(found) {
        try {
          return await runAttempt(ctx, sweepTenant(scope, found.workspace_id), found.id);
        } catch (error) {
          // One attempt that cannot be recorded must not hold up the others; it stays visible and is tried again.
          ctx.log?.error({ err: error, attemptId: found.id }, 'collection attempt could not be run');
          await noteTrouble(ctx, found.id, scope.now.toISOString(), error);
          return false;
        }
      },
    });
  },
  async nextDueAfter(ctx, scope) {
    const staleBefore = new Date(scope.now.getTime() - STALE_CHARGE_MS).toISOString();
    const next = await repo.nextToRun(ctx.db, scope, scope.now.toISOString(), staleBefore);
    const stale =
      next.inFlightSince && new Date(Date.parse(next.inFlightSince) + STALE_CHARGE_MS).toISOString();
    return earliest(next.scheduledFor, stale, next.reconcileAt);
  },
};
