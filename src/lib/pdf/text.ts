import { formatMoney } from '../money.js';

/**
 * Money as a document prints it: the currency's own form from `formatMoney` (150000 NGN "₦1,500.00", 1500 JPY
 * "¥1,500", a negative amount "-₦50.00"), exact from the integer of minor units.
 */
export function moneyText(minor: number, currency: string): string {
  return formatMoney(minor, currency);
}

const dayFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

/** A calendar date (YYYY-MM-DD, already in the business's zone) as a document prints it: "31 Jan 2027". */
export function dateText(date: string): string {
  return dayFormat.format(new Date(`${date}T00:00:00Z`));
}

const momentFormats = new Map<string, Intl.DateTimeFormat>();

/** An instant in a time zone as a document prints it: "31 Jan 2027, 14:05 (Africa/Lagos)". */
export function momentText(instant: string | Date, timeZone: string): string {
  let format = momentFormats.get(timeZone);
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
    momentFormats.set(timeZone, format);
  }
  return `${format.format(typeof instant === 'string' ? new Date(instant) : instant)} (${timeZone})`;
}
