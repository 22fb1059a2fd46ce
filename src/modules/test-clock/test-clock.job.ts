import { Type } from 'typebox';
import { finishAdvance, testClockState } from '../../clock/tenant-clocks.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { defineJob, exponentialBackoff } from '../../jobs/job.js';
import { runSweepsWithin } from '../../jobs/sweeps.js';

/**
 * Finishes an advance that answered 202: runs the workspace's sweeps as of the advance's target, one budget of
 * records per run, running again until a pass finds nothing more due; then the clock is ready. Regular sweeps
 * leave the workspace alone meanwhile, and other jobs are claimed between two runs.
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
    const scope = { mode: 'test' as const, workspaceId, now: new Date(to) };
    const { ran, done } = await runSweepsWithin(ctx, scope, ctx.config.testClockAdvanceBudget);
    ctx.log.debug({ workspaceId, ran, done }, 'test clock advance: a batch of due work');
    if (!done) return { rerunAt: ctx.clock.now() };
    await inTransaction(ctx, (trx) =>
      finishAdvance(trx, workspaceId, { offsetMs, now: ctx.clock.now().toISOString() }),
    );
    return undefined;
  },
});
