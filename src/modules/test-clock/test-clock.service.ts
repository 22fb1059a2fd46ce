import { moveTestClock, testClockState } from '../../clock/tenant-clocks.js';
import type { TestClockStatus } from '../../clock/test-clocks.table.js';
import type { AppContext } from '../../context.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { enqueue } from '../../jobs/queue.js';
import { runSweepsThrough } from '../../jobs/sweeps.js';
import { AppError, fieldError } from '../../lib/app-error.js';
import { toInstant } from '../../lib/instant.js';
import type { AuthContext } from '../api-keys/api-keys.service.js';
import { finishAdvanceJob } from './test-clock.job.js';
import {
  MAX_AHEAD_DAYS,
  type TestClock,
  type TestClockAdvance,
  type TestClockAdvanced,
} from './test-clock.schemas.js';

const HOUR_MS = 3_600_000;
const MAX_AHEAD_MS = MAX_AHEAD_DAYS * 24 * HOUR_MS;
/** The last instant both databases and the API keep as written (`+010000-…` after it). */
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
/** Advances racing on one workspace each retry from the time the winner left. */
const ATTEMPTS = 20;

function requireTestMode(auth: AuthContext): void {
  if (auth.mode !== 'test') {
    throw new AppError('forbidden', 'The test clock belongs to test mode; use a test key (pt_test_…).', {
      required_mode: 'test',
    });
  }
}

export async function getTestClock(ctx: AppContext, auth: AuthContext): Promise<TestClock> {
  requireTestMode(auth);
  const { offsetMs, status } = await testClockState(ctx.db, auth.workspaceId);
  return { now: new Date(ctx.clock.now().getTime() + offsetMs).toISOString(), offsetMs, status };
}

type Field = 'to' | 'days' | 'hours';

/** The one move the body asks for, as a target time from the current test time, and the field that gave it. */
function targetOf(input: TestClockAdvance, current: number): { field: Field; target: number } {
  const given = (['to', 'days', 'hours'] as const).filter((field) => input[field] !== undefined);
  const [field] = given;
  if (given.length !== 1 || field === undefined) {
    const problem =
      given.length === 0 ? 'give exactly one of to, days and hours' : 'give only one of to, days and hours';
    throw fieldError(
      Object.fromEntries((given.length === 0 ? ['to', 'days', 'hours'] : given).map((f) => [f, problem])),
    );
  }
  if (input.to !== undefined) {
    const target = Date.parse(toInstant(input.to, 'to'));
    if (target < current) {
      throw fieldError({
        to: `must not be before the test clock's time, ${new Date(current).toISOString()}`,
      });
    }
    return { field, target };
  }
  const hours = input.days !== undefined ? input.days * 24 : (input.hours ?? 0);
  return { field, target: current + hours * HOUR_MS };
}

/** The target, if it is within the bound: 3,652 days past real time (the server's clock), and never past 9999. */
function boundedTarget(input: TestClockAdvance, current: number, real: number): number {
  const { field, target } = targetOf(input, current);
  const latest = Math.min(real + MAX_AHEAD_MS, LAST_INSTANT);
  if (target > latest) {
    throw fieldError({
      [field]:
        `must not take the test clock more than ${MAX_AHEAD_DAYS.toLocaleString('en-US')} days (10 years) past ` +
        `real time: at most to ${new Date(latest).toISOString()}`,
    });
  }
  return target;
}

/** Another advance moved the clock between our read and our write. */
class ClockMoved extends Error {}

const advancing = () =>
  new AppError(
    'invalid_state',
    'The test clock is still advancing: the worker is finishing the due work of the last advance. Read ' +
      'GET /account/test-clock until its status is ready, then advance again.',
    { status: 'advancing', action: 'advance' },
  );

/**
 * Moves the workspace's test clock forward and first runs the time-driven work of the workspace's test mode that
 * falls due on the way, stepping through the instants where it falls due, in order, each as of its own time (as
 * a worker running all along would have), up to the configured budget of records. Work beyond it is left to the
 * worker, from the step reached: the clock is moved all the same, `advancing` until that work is done. `answer` hears the
 * outcome before the change commits (an idempotent response is kept with its status). Two advances at once are
 * applied one after the other.
 */
export async function advanceTestClock(
  ctx: AppContext,
  auth: AuthContext,
  input: TestClockAdvance,
  answer: (status: TestClockStatus) => void = () => {},
): Promise<TestClockAdvanced> {
  requireTestMode(auth);
  for (let attempt = 1; ; attempt++) {
    const { offsetMs: from, status: before } = await testClockState(ctx.db, auth.workspaceId);
    if (before === 'advancing') throw advancing();
    const real = ctx.clock.now().getTime();
    const current = real + from;
    const target = boundedTarget(input, current, real);
    const offsetMs = target - real;
    const now = new Date(target);
    // The sweeps act as a tenant object of their own, so their units of work are not the request's.
    const { ran, done, reached } = await runSweepsThrough(
      ctx,
      { mode: 'test', workspaceId: auth.workspaceId },
      new Date(current),
      now,
      ctx.config.testClockAdvanceBudget,
    );
    const status: TestClockStatus = done ? 'ready' : 'advancing';
    answer(status);
    try {
      const moved = await inTransaction(ctx, auth, async (trx) => {
        const at = new Date(real).toISOString();
        const move = { from, to: offsetMs, status, sweptTo: reached.toISOString(), now: at };
        if (!(await moveTestClock(trx, auth.workspaceId, move))) {
          throw new ClockMoved();
        }
        if (!done) {
          await enqueue(trx, ctx.clock, finishAdvanceJob, {
            workspaceId: auth.workspaceId,
            to: now.toISOString(),
            offsetMs,
          });
        }
        return { now: now.toISOString(), offsetMs, status, previous: new Date(current).toISOString(), ran };
      });
      // The workspace's keys carry its clock: the next request reads them again.
      ctx.keys.forgetWorkspace(auth.workspaceId);
      return moved;
    } catch (error) {
      if (!(error instanceof ClockMoved)) throw error;
      if (attempt >= ATTEMPTS) {
        throw new AppError('invalid_state', 'The test clock is being moved by other requests; try again.', {
          status: 'moving',
          action: 'advance',
        });
      }
    }
  }
}
