import type { Trx } from '../db/schema.js';
import { fieldError } from '../lib/app-error.js';
import {
  addDays,
  LAST_DATE,
  localDate,
  occurrence,
  occurrencesThrough,
  splitEvenly,
} from '../lib/calendar.js';
import type { Tenant } from '../lib/tenant.js';
import * as obligations from '../modules/schedules/obligations.repository.js';
import { obligationRow, recordCreated, recurrenceOf } from '../modules/schedules/schedules.generation.js';
import { obligationChange } from '../modules/schedules/schedules.mapper.js';
import * as schedules from '../modules/schedules/schedules.repository.js';
import type { ScheduleChanges } from '../modules/schedules/schedules.schemas.js';
import type { SchedulesTable } from '../modules/schedules/schedules.table.js';
import type { TracksTable } from '../modules/tracks/tracks.table.js';
import { recordPaid } from './obligations-paid.js';

/**
 * `sync_payment_plan`: the plan's balance, less what its other schedules' open obligations owe, is spread
 * evenly (exact to the minor unit, the earlier ones taking the extra units) over this schedule's open
 * obligations; an obligation left owing nothing is cancelled (or paid, when partly paid). With none open and a
 * balance left, one obligation is added on the schedule's next date (today at the earliest). In the caller's
 * transaction, with the plan and the schedule locked.
 */
export async function syncWithPlan(
  trx: Trx,
  tenant: Tenant,
  schedule: SchedulesTable,
  track: TracksTable,
): Promise<Omit<ScheduleChanges, 'dry_run' | 'owed_after'>> {
  const now = tenant.clock.now();
  // Spread over this schedule's instalments: its fees, like other schedules' obligations, keep what they ask.
  const open = await obligations.openInstalmentsOfSchedule(trx, schedule.id);
  const ownOwed = open.reduce((sum, o) => sum + o.amount - o.amount_paid, 0);
  const target = Math.max(0, track.balance - (await obligations.owedOnTrack(trx, track.id)) + ownOwed);
  const result: Omit<ScheduleChanges, 'dry_run' | 'owed_after'> = { created: [], updated: [], cancelled: [] };
  if (open.length === 0) {
    if (target === 0) return result;
    const today = localDate(now, schedule.timezone);
    const last = await obligations.lastOfSchedule(trx, schedule.id);
    const recurrence = recurrenceOf(schedule);
    let n = schedule.next_sequence;
    if ((recurrence && n >= occurrencesThrough(recurrence)) || last?.due_date === LAST_DATE) {
      throw fieldError({
        action: `sync_payment_plan would add an obligation due after ${LAST_DATE}, the last date kept`,
      });
    }
    let due = recurrence ? occurrence(recurrence, n) : today;
    if (last && due <= last.due_date) due = addDays(last.due_date, 1);
    if (due < today) due = today;
    if (!recurrence && n === 0) n = 1;
    const [created] = await obligations.insertMany(trx, [obligationRow(schedule, n, due, target, now)]);
    if (created) {
      await recordCreated(trx, tenant, [created], track);
      await schedules.updateIn(trx, tenant, schedule.id, [schedule.status], { next_sequence: n + 1 });
      result.created.push(obligationChange(created));
    }
    return result;
  }
  const shares = splitEvenly(target, open.length);
  const at = now.toISOString();
  for (const [i, o] of open.entries()) {
    const share = shares[i] ?? 0;
    const amount = o.amount_paid + share;
    if (share === o.amount - o.amount_paid) continue;
    if (amount === 0) {
      const cancelled = await obligations.cancel(trx, o.id, at);
      if (cancelled) result.cancelled.push(obligationChange(cancelled, o.amount));
      continue;
    }
    const status = share === 0 ? 'paid' : o.status;
    const updated = await obligations.setAmount(trx, o.id, amount, status, at);
    if (!updated) continue;
    result.updated.push(obligationChange(updated, o.amount));
    if (status === 'paid') await recordPaid(trx, tenant, track, [updated], { sync: 'sync_payment_plan' });
  }
  return result;
}
