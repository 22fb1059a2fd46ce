import { moveTestClock, testClockOffset } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import { inTransaction, withoutCommitHook } from '../../db/unit-of-work.js';
import { runSweepsNow } from '../../jobs/sweeps.js';
import { AppError, fieldError } from '../../lib/app-error.js';
import { toInstant } from '../../lib/instant.js';
import type { AuthContext } from '../api-keys/api-keys.service.js';
import type { TestClock, TestClockAdvance, TestClockAdvanced } from './test-clock.schemas.js';

const HOUR_MS = 3_600_000;
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
  const offsetMs = await testClockOffset(ctx.db, auth.workspaceId);
  return { now: new Date(ctx.clock.now().getTime() + offsetMs).toISOString(), offsetMs };
}

/** The one move the body asks for, as a target time from the current test time. */
function targetOf(input: TestClockAdvance, current: number): number {
  const given = (['to', 'days', 'hours'] as const).filter((field) => input[field] !== undefined);
  if (given.length !== 1) {
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
    return target;
  }
  return current + (input.days !== undefined ? input.days * 24 * HOUR_MS : (input.hours ?? 0) * HOUR_MS);
}

/** Another advance moved the clock between our read and our write. */
class ClockMoved extends Error {}

/**
 * Moves the workspace's test clock forward and first runs, as of the new time, all time-driven work of the
 * workspace's test mode that falls due on the way. Two advances at once are applied one after the other.
 */
export async function advanceTestClock(
  ctx: AppContext,
  auth: AuthContext,
  input: TestClockAdvance,
): Promise<TestClockAdvanced> {
  requireTestMode(auth);
  for (let attempt = 1; ; attempt++) {
    const from = await testClockOffset(ctx.db, auth.workspaceId);
    const real = ctx.clock.now().getTime();
    const current = real + from;
    const target = targetOf(input, current);
    const offsetMs = target - real;
    const now = new Date(target);
    const ran = await withoutCommitHook(() =>
      runSweepsNow(ctx, { mode: 'test', workspaceId: auth.workspaceId, now }),
    );
    try {
      const moved = await inTransaction(ctx, async (trx) => {
        if (!(await moveTestClock(trx, auth.workspaceId, from, offsetMs, new Date(real).toISOString()))) {
          throw new ClockMoved();
        }
        return { now: now.toISOString(), offsetMs, previous: new Date(current).toISOString(), ran };
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
