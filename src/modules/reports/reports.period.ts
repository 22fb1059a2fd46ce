import { fieldError } from '../../lib/app-error.js';
import { localDateIn } from '../../lib/calendar.js';
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
  /** `to` is now (or later) when the request came: the stored figures are the figures of that time. */
  current: boolean;
}

export function periodOf(query: { from?: string; to?: string }, now: Date): Period {
  const from = query.from ? toInstant(query.from, 'from') : null;
  const to = query.to ? toInstant(query.to, 'to') : now.toISOString();
  if (from !== null && from > to) throw fieldError({ from: 'must not be after to' });
  return {
    from,
    to,
    end: query.to ? to : new Date(now.getTime() + 1).toISOString(),
    current: to >= now.toISOString(),
  };
}

/** The period a local calendar date falls in: the date itself, its week's Monday or its month's first day. */
export function periodOfDate(date: string, groupBy: GroupBy): string {
  if (groupBy === 'day') return date;
  if (groupBy === 'month') return `${date.slice(0, 8)}01`;
  const ms = Date.parse(`${date}T00:00:00Z`);
  const sinceMonday = (new Date(ms).getUTCDay() + 6) % 7;
  return new Date(ms - sinceMonday * 86_400_000).toISOString().slice(0, 10);
}

/** Each quarter hour's (`YYYY-MM-DDTHH:MM`, UTC) period bucket in a time zone: the first local day of its period. */
export function bucketsIn(timeZone: string, groupBy: GroupBy): (slot: string) => string {
  const dayOf = localDateIn(timeZone);
  return (slot) => periodOfDate(dayOf(`${slot}:00Z`), groupBy);
}

/** Whole days from a due date to a later calendar date (`today`, a local date): 1 on the day after the due date. */
export function daysOverdue(dueDate: string, today: string): number {
  return Math.round((Date.parse(`${today}T00:00:00Z`) - Date.parse(`${dueDate}T00:00:00Z`)) / 86_400_000);
}

export const AGEING_BUCKETS = ['1-30', '31-60', '61-90', '91+'] as const;
export type AgeingBucket = (typeof AGEING_BUCKETS)[number];

export function ageingBucket(days: number): AgeingBucket {
  if (days <= 30) return '1-30';
  if (days <= 60) return '31-60';
  if (days <= 90) return '61-90';
  return '91+';
}
