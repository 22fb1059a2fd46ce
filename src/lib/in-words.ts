/**
 * Dates, times, zones, phone numbers and lists as the people on payer pages read them. Pure: no clock, no I/O.
 * Written out from Intl's parts, so the words do not change with the ICU version (some put a comma after the
 * weekday, some do not).
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js';

const dayFormat = new Intl.DateTimeFormat('en-GB', {
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

function partsOf(format: Intl.DateTimeFormat, at: Date): (type: Intl.DateTimeFormatPartTypes) => string {
  const parts = format.formatToParts(at);
  return (type) => parts.find((p) => p.type === type)?.value ?? '';
}

/** A calendar date (`YYYY-MM-DD`) in words: "Thursday 26 November 2026". */
export function dayInWords(date: string): string {
  const part = partsOf(dayFormat, new Date(`${date}T00:00:00Z`));
  return `${part('weekday')} ${part('day')} ${part('month')} ${part('year')}`;
}

const shortDayFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

/** A calendar date (`YYYY-MM-DD`) short, for tables: "26 Nov 2026". */
export const shortDayInWords = (date: string): string =>
  shortDayFormat.format(new Date(`${date.slice(0, 10)}T00:00:00Z`));

const briefDayFormat = new Intl.DateTimeFormat('en-GB', {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  timeZone: 'UTC',
});

/** A calendar date (`YYYY-MM-DD`) as a short message says a near day: "Fri 4 Dec". */
export function briefDayInWords(date: string): string {
  const part = partsOf(briefDayFormat, new Date(`${date.slice(0, 10)}T00:00:00Z`));
  return `${part('weekday')} ${part('day')} ${part('month')}`;
}

/** The name of a time zone as people say it: "Lagos time", "New York time", "UTC". */
export function zoneInWords(timeZone: string): string {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return 'UTC';
  if (timeZone.startsWith('Etc/')) return timeZone.slice(4);
  const city = timeZone.split('/').pop() ?? timeZone;
  return `${city.replaceAll('_', ' ')} time`;
}

const timeFormats = new Map<string, Intl.DateTimeFormat>();

/** An instant as the clock on the wall of a time zone shows it, the zone named: "27 Nov 2026, 14:00 (Lagos time)". */
export function instantInWords(instant: string, timeZone: string): string {
  let format = timeFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZone,
    });
    timeFormats.set(timeZone, format);
  }
  const part = partsOf(format, new Date(instant));
  return `${part('day')} ${part('month')} ${part('year')}, ${part('hour')}:${part('minute')} (${zoneInWords(timeZone)})`;
}

/** An E.164 number written the way it is dialled from abroad: "+234 803 123 4567" (as given when unreadable). */
export function phoneInWords(e164: string): string {
  return parsePhoneNumberFromString(e164)?.formatInternational() ?? e164;
}

/** Items joined as a sentence does: "a", "a and b", "a, b and c". */
export function listInWords(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
