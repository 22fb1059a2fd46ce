import type { Trx } from '../../db/schema.js';
import {
  firstOccurrenceOnOrAfter,
  localDate,
  occurrence,
  occurrencesThrough,
  type Recurrence,
  startOfDay,
  startOfFollowingDay,
} from '../../lib/calendar.js';
import { newId } from '../../lib/ids.js';
import { feeStart, lateFeeOf } from '../../lib/late-fee.js';
import type { Tenant } from '../../lib/tenant.js';
import { appendEntries } from '../ledger/ledger.service.js';
import type { TracksTable } from '../tracks/tracks.mapper.js';
import { stageStart } from './obligations.remind-stages.js';
import * as obligations from './obligations.repository.js';
import { uncoveredOf } from './schedules.coverage.js';
import * as repo from './schedules.repository.js';
import {
  COLLECTED_WHEN_DUE,
  type ObligationsTable,
  REMINDED_METHODS,
  REPEATING_FREQUENCIES,
  type SchedulesTable,
} from './schedules.table.js';

/** Open-ended schedules are kept this many obligations ahead of today. */
export const AHEAD = 12;
/** Most obligations one generation makes (a schedule whose dates would need more is refused at create). */
export const MAX_GENERATED = 1000;

type Rule = Pick<SchedulesTable, 'frequency' | 'interval' | 'start_date' | 'end_date' | 'timezone'>;

/** The rule its dates follow, for the frequencies that repeat. */
export function recurrenceOf(rule: Rule): Recurrence | null {
  const anchor = localDate(rule.start_date, rule.timezone);
  const every = rule.interval ?? 1;
  switch (rule.frequency) {
    case 'daily':
    case 'custom':
      return { unit: 'day', every, anchor };
    case 'weekly':
      return { unit: 'week', every, anchor };
    case 'monthly':
      return { unit: 'month', every, anchor };
    case 'installment_sequence':
      return { unit: 'month', every: 1, anchor };
    default:
      return null;
  }
}

/** Repeats with no end date: generated 12 ahead, and topped up as days pass. */
export function isOpenEnded(rule: Rule): boolean {
  return rule.end_date === null && REPEATING_FREQUENCIES.includes(rule.frequency);
}

/** The due date of the obligation with sequence number `n`. */
export function dueDateOf(rule: Rule, n: number): string {
  const recurrence = recurrenceOf(rule);
  if (recurrence) return occurrence(recurrence, n);
  if (rule.frequency === 'flexible' && rule.end_date !== null) return localDate(rule.end_date, rule.timezone);
  return localDate(rule.start_date, rule.timezone);
}

/**
 * The sequence numbers [from, to) a generation at `today` covers: everything up to the end date, or up to 12
 * on or after today when open-ended, and never a date after 9999-12-31 (`pastLastDate` says the rule wanted
 * more). `skipPast` (resuming a pause) leaves out dates that passed meanwhile. `count` is an instalment
 * sequence's number of instalments.
 */
export function sequenceRange(
  rule: Rule,
  nextSequence: number,
  today: string,
  options: { skipPast?: boolean; count?: number } = {},
): { from: number; to: number; pastLastDate: boolean } {
  const recurrence = recurrenceOf(rule);
  if (!recurrence) return { from: nextSequence, to: Math.max(nextSequence, 1), pastLastDate: false };
  let from = nextSequence;
  let to: number;
  if (rule.frequency === 'installment_sequence') {
    to = options.count ?? 0;
  } else {
    if (options.skipPast) from = Math.max(nextSequence, firstOccurrenceOnOrAfter(recurrence, today));
    to =
      rule.end_date === null
        ? firstOccurrenceOnOrAfter(recurrence, today) + AHEAD
        : occurrencesThrough(recurrence, localDate(rule.end_date, rule.timezone));
  }
  const last = occurrencesThrough(recurrence);
  return { from, to: Math.max(from, Math.min(to, last)), pastLastDate: to > last };
}

/**
 * When an open-ended schedule whose next sequence number is `next` falls below 12 ahead; null when it never will
 * (not open-ended, or its dates have reached 9999-12-31).
 */
export function topUpAt(rule: Rule, next: number): string | null {
  const recurrence = recurrenceOf(rule);
  if (!recurrence || !isOpenEnded(rule) || next >= occurrencesThrough(recurrence)) return null;
  return startOfFollowingDay(occurrence(recurrence, Math.max(0, next - AHEAD)), rule.timezone);
}

/** An obligation row for sequence `n` of a schedule, made at `at`. */
export function obligationRow(
  schedule: SchedulesTable,
  n: number,
  dueDate: string,
  amount: number,
  at: Date,
): ObligationsTable {
  const now = at.toISOString();
  const reminded = REMINDED_METHODS.includes(schedule.collection_method);
  return {
    id: newId('obligation', at),
    kind: 'instalment',
    workspace_id: schedule.workspace_id,
    mode: schedule.mode,
    schedule_id: schedule.id,
    track_id: schedule.track_id,
    sequence: n,
    due_date: dueDate,
    amount,
    amount_paid: 0,
    currency: schedule.currency,
    status: 'pending',
    overdue_at: startOfFollowingDay(dueDate, schedule.timezone),
    paid_at: null,
    allocations: '[]',
    collect_at: COLLECTED_WHEN_DUE.includes(schedule.collection_method)
      ? startOfDay(dueDate, schedule.timezone)
      : null,
    remind_stage: reminded ? 0 : null,
    remind_at: reminded ? stageStart(dueDate, 0, schedule.timezone) : null,
    checkout_id: null,
    checkout_url: null,
    checkout_provider: null,
    checkout_provider_reference: null,
    checkout_completed_at: null,
    // Late fees are charged on instalments of a plan only.
    ...feeStart(
      schedule.track_id ? lateFeeOf(schedule.late_fee) : null,
      { due_date: dueDate },
      schedule.timezone,
      now,
    ),
    fee_of: null,
    created_at: now,
    updated_at: now,
  };
}

/** The `obligation.created` ledger entries (amount 0: an obligation moves no money) of new obligations. */
export async function recordCreated(
  trx: Trx,
  tenant: Tenant,
  created: readonly ObligationsTable[],
  track: TracksTable | null,
): Promise<void> {
  await appendEntries(
    trx,
    tenant,
    created.map((o) => ({
      type: 'obligation.created' as const,
      trackId: o.track_id,
      customerId: track?.customer_id ?? null,
      amount: 0,
      balanceAfter: track?.balance ?? null,
      currency: o.currency,
      refs: { obligationId: o.id, scheduleId: o.schedule_id, dueDate: o.due_date, amount: String(o.amount) },
    })),
  );
}

/**
 * Generates the schedule's obligations up to its horizon, in the caller's transaction, with the schedule (and
 * its plan) already locked; a due date it already has is skipped. `amounts` gives an instalment sequence's
 * amounts; every other obligation is for `fixed_amount`. For a plan, each takes at most what the plan's balance
 * leaves uncovered by its open obligations, and generation stops when nothing is left: the dates it does not
 * reach get no obligation (an open-ended schedule's later top-ups add them again only if something is uncovered
 * then). Returns the obligations made and the schedule.
 */
export async function generateObligations(
  trx: Trx,
  tenant: Tenant,
  schedule: SchedulesTable,
  track: TracksTable | null,
  options: { skipPast?: boolean; amounts?: readonly number[] } = {},
): Promise<{ created: ObligationsTable[]; schedule: SchedulesTable }> {
  const at = tenant.clock.now();
  const today = localDate(at, schedule.timezone);
  const range = sequenceRange(schedule, schedule.next_sequence, today, {
    ...(options.skipPast ? { skipPast: true } : {}),
    ...(options.amounts ? { count: options.amounts.length } : {}),
  });
  const to = Math.min(range.to, range.from + MAX_GENERATED);
  let left = track ? await uncoveredOf(trx, track) : Number.POSITIVE_INFINITY;
  const rows: ObligationsTable[] = [];
  for (let n = range.from; n < to && left > 0; n++) {
    const amount = Math.min(options.amounts?.[n] ?? schedule.fixed_amount, left);
    rows.push(obligationRow(schedule, n, dueDateOf(schedule, n), amount, at));
    left -= amount;
  }
  const created = await obligations.insertMany(trx, rows);
  await recordCreated(trx, tenant, created, track);
  const next = Math.max(schedule.next_sequence, to);
  const topUp = schedule.status === 'active' || schedule.status === 'paused' ? topUpAt(schedule, next) : null;
  if (next === schedule.next_sequence && topUp === schedule.top_up_at) return { created, schedule };
  const updated = await repo.updateIn(trx, tenant, schedule.id, [schedule.status], {
    next_sequence: next,
    top_up_at: topUp,
  });
  return { created, schedule: updated ?? schedule };
}
