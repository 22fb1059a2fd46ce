import { Temporal } from 'temporal-polyfill';
import { fieldError } from '../../lib/app-error.js';
import { localDate } from '../../lib/calendar.js';
import { toInstant } from '../../lib/instant.js';

export type GroupBy = 'day' | 'week' | 'month';

/**
 * A report's period: `from` (open when absent: all time) to `to` (now when absent). `end` is the exclusive bound
 * queries use: `to` as given, or just after now, so that what was recorded at this very moment counts.
 */
export interface Period {
  from: string | null;
  to: string;
  end: string;
}

export function periodOf(query: { from?: string; to?: string }, now: Date): Period {
  const from = query.from ? toInstant(query.from, 'from') : null;
  const to = query.to ? toInstant(query.to, 'to') : now.toISOString();
  if (from !== null && from > to) throw fieldError({ from: 'must not be after to' });
  return { from, to, end: query.to ? to : new Date(now.getTime() + 1).toISOString() };
}

/** The period bucket a UTC quarter hour (`YYYY-MM-DDTHH:MM`) falls in, in a time zone: its first local day. */
export function bucketOf(slot: string, timeZone: string, groupBy: GroupBy): string {
  const date = Temporal.PlainDate.from(localDate(`${slot}:00Z`, timeZone));
  if (groupBy === 'day') return date.toString();
  if (groupBy === 'week') return date.subtract({ days: date.dayOfWeek - 1 }).toString();
  return date.with({ day: 1 }).toString();
}

/** Whole days from a due date to the local date of `at`: 1 on the day after the due date. */
export function daysOverdue(dueDate: string, at: string, timeZone: string): number {
  return Temporal.PlainDate.from(dueDate).until(Temporal.PlainDate.from(localDate(at, timeZone)), {
    largestUnit: 'days',
  }).days;
}

export const AGEING_BUCKETS = ['1-30', '31-60', '61-90', '91+'] as const;
export type AgeingBucket = (typeof AGEING_BUCKETS)[number];

export function ageingBucket(days: number): AgeingBucket {
  if (days <= 30) return '1-30';
  if (days <= 60) return '31-60';
  if (days <= 90) return '61-90';
  return '91+';
}
