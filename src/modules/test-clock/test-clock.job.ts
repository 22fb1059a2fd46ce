import { Type } from 'typebox';
import { finishAdvance, recordSweptTo, testClockState } from '../../clock/tenant-clocks.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { defineJob, exponentialBackoff } from '../../jobs/job.js';
import { runSweepsThrough } from '../../jobs/sweeps.js';

/**
 * Finishes an advance that answered 202: steps the workspace's sweeps on from the instant the advance's due work
 * reached to its target, one budget of records per run, noting the step reached after each; once the target's
 * work is done, the clock is ready. Regular sweeps leave the workspace alone meanwhile, and other jobs are
 * claimed between two runs.
 */
export const finishAdvanceJob = defineJob({
  name: 'test_clock.advance',
  payload: Type.Object({
    workspaceId: Type.String(),
    /** The advance's target, and the offset it left: once a later advance moved the clock, its own job goes on. */
    to: Type.String(),
    offsetMs: Type.Integer(),
  }),
  // A failing batch is tried again (backoff up to an hour) for about half a day; the clock stays advancing.
  maxAttempts: 20,
  backoffMs: exponentialBackoff,
  group: ({ workspaceId }) => `test_clock:${workspaceId}`,
  groupConcurrency: 1,
  async run(ctx, { workspaceId, to, offsetMs }) {
    const clock = await testClockState(ctx.db, workspaceId);
    if (clock.status !== 'advancing' || clock.offsetMs !== offsetMs) return undefined;
    const target = new Date(to);
    // An advance begun before advances stepped kept no step: its work is done as of its target.
    const from = clock.sweptTo === null ? target : new Date(clock.sweptTo);
    const tenant = { mode: 'test' as const, workspaceId };
    const { ran, done, reached } = await runSweepsThrough(
      ctx,
      tenant,
      from,
      target,
      ctx.config.testClockAdvanceBudget,
    );
    ctx.log.debug(
      { workspaceId, ran, done, reached: reached.toISOString() },
      'test clock advance: a batch of due work',
    );
    const now = ctx.clock.now().toISOString();
    if (!done) {
      await inTransaction(ctx, null, (trx) =>
        recordSweptTo(trx, workspaceId, { offsetMs, sweptTo: reached.toISOString(), now }),
      );
      return { rerunAt: ctx.clock.now() };
    }
    await inTransaction(ctx, null, (trx) => finishAdvance(trx, workspaceId, { offsetMs, now }));
    return undefined;
  },
});
