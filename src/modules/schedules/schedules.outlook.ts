import type { DbOrTrx } from '../../db/schema.js';
import { occurrencesThrough } from '../../lib/calendar.js';
import type { TenantRef } from '../../lib/tenant.js';
import { getTrackRow } from '../tracks/tracks.service.js';
import * as obligations from './obligations.repository.js';
import { dueDateOf, isOpenEnded, MAX_GENERATED, recurrenceOf } from './schedules.generation.js';
import * as repo from './schedules.repository.js';
import type { SchedulesTable } from './schedules.table.js';

/** A collection to come: its due date (`YYYY-MM-DD`, in the schedule's zone) and what it asks. */
export interface Collection {
  date: string;
  amount: number;
}

/** What a schedule still asks of its payer, as a consent page states it. */
export interface Outlook {
  schedule: Pick<SchedulesTable, 'id' | 'currency' | 'frequency' | 'interval' | 'fixed_amount' | 'timezone'>;
  /** The plan it collects; null for a schedule with no plan. */
  trackId: string | null;
  /** Oldest first: what is left of its open obligations, then those later top-ups will add. */
  collections: Collection[];
  /** How many of the collections are not obligations yet (later top-ups will add them). */
  ahead: number;
  /** No end in sight: no end date and no plan balance to cover; `collections` are then only the first ones. */
  endless: boolean;
}

/**
 * The collections ahead of a schedule that has no end date but collects a plan: top-ups keep adding
 * `fixed_amount` obligations on its dates until the plan's balance is covered, so these are known now (as long
 * as nothing else pays the plan). Null when they are more than one generation could make.
 */
async function toCover(db: DbOrTrx, tenant: TenantRef, schedule: SchedulesTable, trackId: string) {
  const plan = await getTrackRow(db, tenant, trackId);
  let left = Math.max(0, plan.balance - (await obligations.owedOnTrack(db, trackId)));
  const recurrence = recurrenceOf(schedule);
  const last = recurrence ? occurrencesThrough(recurrence) : schedule.next_sequence;
  const ahead: Collection[] = [];
  for (let n = schedule.next_sequence; left > 0 && n < last; n++) {
    if (ahead.length === MAX_GENERATED) return null;
    const amount = Math.min(schedule.fixed_amount, left);
    ahead.push({ date: dueDateOf(schedule, n), amount });
    left -= amount;
  }
  return ahead;
}

export async function scheduleOutlook(
  db: DbOrTrx,
  tenant: TenantRef,
  scheduleId: string,
): Promise<Outlook | null> {
  const schedule = await repo.findRow(db, tenant, scheduleId);
  if (!schedule) return null;
  const open = (await obligations.openOfSchedule(db, schedule.id)).map((o) => ({
    date: o.due_date,
    amount: o.amount - o.amount_paid,
  }));
  const inForce = schedule.status === 'active' || schedule.status === 'paused';
  const ahead =
    inForce && isOpenEnded(schedule) && schedule.track_id
      ? await toCover(db, tenant, schedule, schedule.track_id)
      : [];
  return {
    schedule,
    trackId: schedule.track_id,
    collections: [...open, ...(ahead ?? [])],
    ahead: ahead?.length ?? 0,
    endless: inForce && isOpenEnded(schedule) && (schedule.track_id === null || ahead === null),
  };
}
