/**
 * Calendar dates (`YYYY-MM-DD`), time zones, recurrence rules and integer money splits for payment schedules.
 * Pure: no clock, no I/O. Instants are UTC ISO strings as `Date.prototype.toISOString()` prints them.
 */
import { Temporal } from 'temporal-polyfill';
import { LAST_INSTANT_MS } from './instant.js';

const DATE_FORM = /^\d{4}-\d{2}-\d{2}$/;
/** Temporal also takes fixed offsets ('+01:00') as time zones; those are not IANA names. */
const OFFSET_FORM = /^[+-]/;

/** The last calendar date the service keeps: no date it makes falls after it. */
export const LAST_DATE = '9999-12-31';
const LAST_PLAIN_DATE = Temporal.PlainDate.from(LAST_DATE);

/**
 * A date or instant past the end of 9999, which would print in the extended form (`+010000-01-01`) that neither
 * compares in order with the others as text nor parses back as `YYYY-MM-DD`: refused instead of printed.
 */
export class DateOutOfRangeError extends RangeError {}

function parseDate(date: string): Temporal.PlainDate {
  if (!DATE_FORM.test(date)) throw new RangeError(`not a YYYY-MM-DD date: ${date}`);
  return Temporal.PlainDate.from(date);
}

function dateText(date: Temporal.PlainDate): string {
  if (Temporal.PlainDate.compare(date, LAST_PLAIN_DATE) > 0) {
    throw new DateOutOfRangeError(`${date.toString()} is after ${LAST_DATE}, the last date kept`);
  }
  return date.toString();
}

function instantText(epochMilliseconds: number): string {
  if (epochMilliseconds > LAST_INSTANT_MS) {
    throw new DateOutOfRangeError(`an instant after ${LAST_DATE}, the last date kept`);
  }
  return new Date(epochMilliseconds).toISOString();
}

function requireInteger(value: number, name: string, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer >= ${min}: ${value}`);
  }
}

/** Whether `zone` is an IANA time zone Temporal knows (e.g. 'Africa/Lagos', 'UTC'). */
export function isTimeZone(zone: string): boolean {
  if (OFFSET_FORM.test(zone)) return false;
  try {
    // The constructor takes only identifiers, unlike `from`, which also reads ISO strings like '...[UTC]'.
    new Temporal.ZonedDateTime(0n, zone);
    return true;
  } catch {
    return false;
  }
}

/** The calendar date of an instant in a time zone. `instant` is a Date or an ISO string. */
export function localDate(instant: Date | string, timeZone: string): string {
  const exact =
    typeof instant === 'string'
      ? Temporal.Instant.from(instant)
      : Temporal.Instant.fromEpochMilliseconds(instant.getTime());
  return dateText(exact.toZonedDateTimeISO(timeZone).toPlainDate());
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * `localDate` for many instants in one zone (a report's quarter hours): the zone's formatter is made once, and
 * formatting is far cheaper than Temporal's conversion.
 */
export function localDateIn(timeZone: string): (instant: Date | string) => string {
  let format = dayFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    dayFormats.set(timeZone, format);
  }
  const formatter = format;
  return (instant) => {
    const parts = formatter.formatToParts(typeof instant === 'string' ? new Date(instant) : instant);
    const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
    const year = part('year');
    if (year.length > 4)
      throw new DateOutOfRangeError(`year ${year} is after ${LAST_DATE}, the last date kept`);
    return `${year.padStart(4, '0')}-${part('month')}-${part('day')}`;
  };
}

/**
 * The first instant of a calendar date in a time zone (handles zones where midnight does not exist on DST
 * days: Temporal's startOfDay), as an ISO string with Z and milliseconds.
 */
export function startOfDay(date: string, timeZone: string): string {
  const start = parseDate(date).toZonedDateTime({ timeZone }).startOfDay();
  return instantText(start.epochMilliseconds);
}

/**
 * The first instant of the day after a calendar date in a time zone (when something due that day falls
 * overdue), or the last instant kept (9999-12-31T23:59:59.999Z) when that day starts after it.
 */
export function startOfFollowingDay(date: string, timeZone: string): string {
  const start = parseDate(date).add({ days: 1 }).toZonedDateTime({ timeZone }).startOfDay();
  return instantText(Math.min(start.epochMilliseconds, LAST_INSTANT_MS));
}

/** A calendar date (YYYY-MM-DD) in words: "31 Jan 2027". */
export function dateInWords(date: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  }).format(new Date(`${date}T00:00:00Z`));
}

/** Quiet hours, local time: nothing is sent to people from 21:00 until 08:00. */
export const QUIET_FROM_HOUR = 21;
export const QUIET_UNTIL_HOUR = 8;

/** Local times of day, HH:MM. */
export interface QuietHours {
  start: string;
  end: string;
}

export const DEFAULT_QUIET_HOURS: QuietHours = {
  start: `${QUIET_FROM_HOUR}:00`,
  end: `0${QUIET_UNTIL_HOUR}:00`,
};

const minutesOf = (time: string) => {
  const [hours, minutes] = time.split(':').map(Number);
  return (hours as number) * 60 + (minutes as number);
};

/**
 * When the quiet hours around `instant` end in a time zone (their end, that day or the next), or null when
 * `instant` is outside them. Quiet hours may run over midnight (21:00 to 08:00) or not (13:00 to 14:00); equal
 * start and end mean none.
 */
export function quietHoursEnd(
  instant: string,
  timeZone: string,
  hours: QuietHours = DEFAULT_QUIET_HOURS,
): string | null {
  const local = Temporal.Instant.from(instant).toZonedDateTimeISO(timeZone);
  const now = local.hour * 60 + local.minute;
  const start = minutesOf(hours.start);
  const end = minutesOf(hours.end);
  if (start === end) return null;
  const overMidnight = start > end;
  const quiet = overMidnight ? now >= start || now < end : now >= start && now < end;
  if (!quiet) return null;
  const day = overMidnight && now >= start ? local.toPlainDate().add({ days: 1 }) : local.toPlainDate();
  const endsAt = day.toZonedDateTime({
    timeZone,
    plainTime: Temporal.PlainTime.from({ hour: Math.floor(end / 60), minute: end % 60 }),
  });
  return instantText(endsAt.epochMilliseconds);
}

/** date + days (days may be negative). */
export function addDays(date: string, days: number): string {
  requireInteger(days, 'days', Number.MIN_SAFE_INTEGER);
  return dateText(parseDate(date).add({ days }));
}

/** The first day of the month `months` months before the date's own month: ('2026-11-27', 2) -> '2026-09-01'. */
export function firstOfMonthBefore(date: string, months: number): string {
  requireInteger(months, 'months', 0);
  return dateText(parseDate(date).with({ day: 1 }).subtract({ months }));
}

/** Whole days from `from` to `to` (to - from). */
export function daysBetween(from: string, to: string): number {
  return parseDate(from).until(parseDate(to), { largestUnit: 'days' }).days;
}

export type RecurrenceUnit = 'day' | 'week' | 'month';
export interface Recurrence {
  unit: RecurrenceUnit;
  every: number;
  anchor: string;
}

/**
 * The n-th date (n = 0 is the anchor) of a rule: anchor + n*every units, always computed from the anchor, so
 * months clamp to the month end and come back (anchor 2028-01-31, monthly: 2028-01-31, 2028-02-29,
 * 2028-03-31, 2028-04-30 ...). Never drifts.
 */
export function occurrence(rule: Recurrence, n: number): string {
  return dateText(occurrenceDate(rule, parseDate(rule.anchor), n));
}

function occurrenceDate(rule: Recurrence, anchor: Temporal.PlainDate, n: number): Temporal.PlainDate {
  requireInteger(rule.every, 'every', 1);
  requireInteger(n, 'n', 0);
  const steps = n * rule.every;
  // Temporal's default overflow 'constrain' clamps Jan 31 + 1 month to the end of February.
  const duration =
    rule.unit === 'month' ? { months: steps } : rule.unit === 'week' ? { weeks: steps } : { days: steps };
  return anchor.add(duration);
}

/** The smallest n >= 0 whose occurrence is on or after `date` (0 when date <= anchor). */
export function firstOccurrenceOnOrAfter(rule: Recurrence, date: string): number {
  return firstOnOrAfter(rule, parseDate(date));
}

/**
 * How many occurrences of a rule fall on or before `date` (by default the last date kept): the sequence numbers
 * 0 to that count - 1 are the ones that may be generated.
 */
export function occurrencesThrough(rule: Recurrence, date: string = LAST_DATE): number {
  return firstOnOrAfter(rule, parseDate(date).add({ days: 1 }));
}

function firstOnOrAfter(rule: Recurrence, target: Temporal.PlainDate): number {
  requireInteger(rule.every, 'every', 1);
  const anchor = parseDate(rule.anchor);
  if (Temporal.PlainDate.compare(target, anchor) <= 0) return 0;

  let n: number;
  if (rule.unit === 'month') {
    // Occurrence n falls in month anchor + n*every, so this n is in the target's month or before it.
    const months = (target.year - anchor.year) * 12 + (target.month - anchor.month);
    n = Math.floor(months / rule.every);
  } else {
    const days = anchor.until(target, { largestUnit: 'days' }).days;
    n = Math.ceil(days / (rule.unit === 'week' ? 7 * rule.every : rule.every));
  }

  const isBeforeTarget = (k: number) =>
    Temporal.PlainDate.compare(occurrenceDate(rule, anchor, k), target) < 0;
  while (isBeforeTarget(n)) n++;
  while (n > 0 && !isBeforeTarget(n - 1)) n--;
  return n;
}

/**
 * `total` split into `parts` integers that sum exactly to total, differing by at most 1, the larger ones
 * first. parts >= 1, total >= 0 integers.
 */
export function splitEvenly(total: number, parts: number): number[] {
  requireInteger(total, 'total', 0);
  requireInteger(parts, 'parts', 1);
  const extra = total % parts;
  const base = (total - extra) / parts;
  return Array.from({ length: parts }, (_, i) => (i < extra ? base + 1 : base));
}

/**
 * An instalment sequence: `count` amounts, each `fixed` except the last, which takes the remainder, so they
 * sum exactly to `total`. null when that is impossible (the remainder would be below 1). When count is
 * undefined, count = ceil(total / fixed) (the last is then between 1 and fixed). total, fixed >= 1.
 */
export function installmentAmounts(total: number, fixed: number, count?: number): number[] | null {
  requireInteger(total, 'total', 1);
  requireInteger(fixed, 'fixed', 1);
  const remainder = total % fixed;
  const instalments = count ?? (total - remainder) / fixed + (remainder === 0 ? 0 : 1);
  requireInteger(instalments, 'count', 1);
  // When fixed * (count - 1) is past the safe range it is far above total, so the comparison still holds.
  const last = total - fixed * (instalments - 1);
  if (last < 1) return null;
  const amounts = new Array<number>(instalments).fill(fixed);
  amounts[instalments - 1] = last;
  return amounts;
}

/**
 * Pays `amount` into debts oldest first: returns, per debt in the given order, how much of `amount` it takes
 * (never more than the debt owes, never negative); what is left over is amount - sum(result).
 */
export function allocateOldestFirst(amount: number, owed: readonly number[]): number[] {
  requireInteger(amount, 'amount', 0);
  let left = amount;
  return owed.map((debt) => {
    requireInteger(debt, 'owed', Number.MIN_SAFE_INTEGER);
    const paid = Math.min(Math.max(debt, 0), left);
    left -= paid;
    return paid;
  });
}
