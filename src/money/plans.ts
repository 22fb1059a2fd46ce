import type { Trx } from '../db/schema.js';
import { fieldError } from '../lib/app-error.js';
import type { Tenant } from '../lib/tenant.js';
import * as obligations from '../modules/schedules/obligations.repository.js';
import { toApi } from '../modules/schedules/schedules.mapper.js';
import * as schedules from '../modules/schedules/schedules.repository.js';
import type { Track } from '../modules/tracks/tracks.schemas.js';
import type { TrackStatus, TracksTable } from '../modules/tracks/tracks.table.js';
import { recordEvent } from '../outbox/outbox.js';
import { applyBalanceChange } from './balance.js';
import { settlePaidOffPlan } from './schedule-completion.js';
import { trimToBalance } from './trim.js';

/** An archived plan's amount stays as it is. */
const NOT_ARCHIVED: readonly TrackStatus[] = ['active', 'completed'];

/**
 * A plan's new amount, in the caller's transaction, with the plan locked and `plan` as it now is: the balance
 * moves through the money core as a ledger adjustment (a lower one trims the plan's open obligations to the new
 * balance), and a plan paid off by it settles its schedules. `alsoChanged` are the old values of the other
 * fields the caller changed, for the one `track.updated`. Returns the plan as it now is.
 */
export async function adjustPlanAmount(
  trx: Trx,
  tenant: Tenant,
  plan: TracksTable,
  amount: number,
  alsoChanged: Partial<Track> | null,
): Promise<TracksTable> {
  if (amount < plan.amount_paid) {
    throw fieldError({ amount: `must be at least the ${plan.amount_paid} already paid` });
  }
  const outcome = await applyBalanceChange(trx, tenant, {
    trackId: plan.id,
    amountDelta: amount - plan.amount,
    paidDelta: 0,
    from: NOT_ARCHIVED,
    entry: { type: 'plan.adjusted', refs: { previousAmount: String(plan.amount) } },
    alsoChanged,
  });
  if (!outcome.ok) throw new Error(`plan ${plan.id} changed under its own row lock`);
  // A lower balance asks less of the obligations: trimmed first, so one paid down to what was paid shows paid.
  if (amount < plan.amount) await trimToBalance(trx, tenant, outcome.track);
  if (outcome.track.status === 'completed') await settlePaidOffPlan(trx, tenant, plan.id);
  return outcome.track;
}

/** An archived plan collects nothing more: its schedules not yet done are cancelled with their open obligations. */
export async function cancelSchedulesOfPlan(trx: Trx, tenant: Tenant, trackId: string): Promise<void> {
  const now = tenant.clock.now().toISOString();
  const inForce = await trx
    .selectFrom('schedules')
    .select(['id', 'status'])
    .where('track_id', '=', trackId)
    .where('status', 'in', ['draft', 'active', 'paused'])
    .execute();
  for (const schedule of inForce) {
    const cancelled = await schedules.updateIn(trx, tenant, schedule.id, [schedule.status], {
      status: 'cancelled',
      top_up_at: null,
      updated_at: now,
    });
    if (!cancelled) continue;
    await obligations.cancelOpenOfSchedule(trx, schedule.id, now);
    const row = await schedules.findById(trx, tenant, schedule.id);
    if (row) await recordEvent(trx, tenant, 'schedule.cancelled', toApi(row), { status: schedule.status });
  }
}
