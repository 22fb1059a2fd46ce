import { sweepTenant } from '../../clock/tenant-clocks.js';
import { eachDue } from '../../jobs/sweep-batches.js';
import { earliest, type SweepDefinition } from '../../jobs/sweeps.js';
import * as repo from './promises.repository.js';
import { settleFallenDue } from './promises.service.js';

const BATCH = 200;

/** Open promises at the end of their date: kept if the money came, else broken at that instant. */
export const promisesFallingDueSweep: SweepDefinition = {
  name: 'promises.fall_due',
  everyMs: 60_000,
  async run(ctx, scope) {
    const now = scope.now.toISOString();
    return eachDue(scope, {
      batch: BATCH,
      read: (limit) => repo.fallingDue(ctx.db, scope, now, limit),
      idOf: (found) => found.id,
      handle: (found) => settleFallenDue(ctx, sweepTenant(scope, found.workspace_id), found.id),
    });
  },
  async nextDueAfter(ctx, scope) {
    return earliest(await repo.nextFallingDue(ctx.db, scope, scope.now.toISOString()));
  },
  // A broken promise lets the attempts it held run and queues its reminder, due at once.
  feeds: ['attempts.run', 'reminders.send'],
};
