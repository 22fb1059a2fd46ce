import type { Trx } from '../../db/schema.js';
import { AppError } from '../../lib/app-error.js';
import type { TracksTable } from '../tracks/tracks.mapper.js';
import * as obligations from './obligations.repository.js';

// What a plan's open obligations ask never exceeds its balance. Every path that makes obligations for a plan
// holds the plan's row lock (taken first, as payments take it), so what is read here stays true until commit.

/** What a plan's balance leaves for new obligations: the balance less what its open obligations already ask. */
export async function uncoveredOf(trx: Trx, track: Pick<TracksTable, 'id' | 'balance'>): Promise<number> {
  return Math.max(0, track.balance - (await obligations.owedOnTrack(trx, track.id)));
}

/** What the refusal tells the caller to do, by the request that was refused. */
const HOW_TO_REPLACE: Record<'create_schedule' | 'activate', (ids: string) => string> = {
  create_schedule: (ids) =>
    `To collect by the new schedule instead, send replaces_schedule_id with the schedule it replaces (${ids}): that one is cancelled with its open obligations in the same request. Or cancel it first.`,
  activate: (ids) =>
    `To collect by this schedule instead, cancel the other (${ids}) with {"action":"cancel"}, then activate this one.`,
};

/**
 * A schedule about to generate for a plan whose open obligations already cover its balance would ask more than
 * is owed: refused (409 `invalid_state`), naming the schedules whose obligations cover it. Otherwise returns what
 * is left uncovered.
 */
export async function refuseWhenCovered(
  trx: Trx,
  track: Pick<TracksTable, 'id' | 'balance' | 'status'>,
  action: 'create_schedule' | 'activate',
): Promise<number> {
  const covered = await obligations.owedOnTrack(trx, track.id);
  if (covered < track.balance) return track.balance - covered;
  const schedules = await obligations.schedulesAskingOnTrack(trx, track.id);
  throw new AppError(
    'invalid_state',
    `The plan's open obligations already cover its balance (${covered} of ${track.balance}), so a schedule cannot ask for more. ${HOW_TO_REPLACE[action](schedules.join(', '))}`,
    { status: track.status, action, balance: track.balance, covered, schedules },
  );
}
