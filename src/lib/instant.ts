import { fieldError } from './app-error.js';

/** Instants the service accepts: from 1970 to the end of 9999, the range both databases keep exactly. */
const FIRST_INSTANT = Date.parse('1970-01-01T00:00:00.000Z');
/** The last instant kept: later ones print as `+010000-…`, out of order with every other stored instant. */
export const LAST_INSTANT_MS = Date.parse('9999-12-31T23:59:59.999Z');

export const INSTANT_PROBLEM = 'must be an ISO 8601 date-time with a time zone, from 1970 to 9999';
export const DATE_PROBLEM = 'must be a calendar date YYYY-MM-DD from 1970 to 9999';

/** Whether a date-time already checked for its form (RFC 3339) falls in the accepted range. */
export function isInstantInRange(text: string): boolean {
  const ms = Date.parse(text);
  return !Number.isNaN(ms) && ms >= FIRST_INSTANT && ms <= LAST_INSTANT_MS;
}

/** Whether a `YYYY-MM-DD` date falls in the accepted range. */
export function isDateInRange(text: string): boolean {
  const year = Number(text.slice(0, 4));
  return year >= 1970 && year <= 9999;
}

/** Normalises an accepted date-time to the one stored form, `YYYY-MM-DDTHH:mm:ss.sssZ`, so text compares in time order. */
export function toInstant(value: string, field: string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime()) || !isInstantInRange(value))
    throw fieldError({ [field]: INSTANT_PROBLEM });
  return date.toISOString();
}

/** `from`/`to` list filters in stored form. */
export function instantRange(query: { from?: string; to?: string }): { from?: string; to?: string } {
  return {
    ...(query.from ? { from: toInstant(query.from, 'from') } : {}),
    ...(query.to ? { to: toInstant(query.to, 'to') } : {}),
  };
}
