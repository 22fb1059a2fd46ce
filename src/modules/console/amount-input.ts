import { formatMoney, MAX_AMOUNT, minorUnitDigits, toMajorUnits } from '../../lib/money.js';

/** What an amount field read: the minor units, or the words to show beside the field. */
export type AmountRead = { ok: true; minor: number } | { ok: false; error: string };

const WHOLE = /^(?:[0-9]+|[0-9]{1,3}(?:,[0-9]{3})+)$/;

/**
 * An amount as people type it in major units ("1500", "1,500.50", " 2 000 " is refused: only commas group) read
 * exactly into minor units of `currency`, on the digits alone: no float ever holds it. At most the currency's
 * minor digits after the point (NGN 2, JPY 0, KWD 3); more than zero; at most the API's largest amount.
 */
export function readAmount(text: string | null | undefined, currency: string): AmountRead {
  const typed = (text ?? '').trim();
  if (typed === '') return { ok: false, error: 'Enter an amount.' };
  const digits = minorUnitDigits(currency);
  const example = digits === 0 ? '1,500' : `1,500.${'5'.padEnd(digits, '0')}`;
  if (typed.startsWith('-')) return { ok: false, error: 'Enter an amount more than zero.' };
  const [whole = '', fraction, ...rest] = typed.split('.');
  if (rest.length > 0 || !WHOLE.test(whole) || (fraction !== undefined && !/^[0-9]+$/.test(fraction)))
    return { ok: false, error: `Enter the amount in figures, like ${example}.` };
  if (fraction !== undefined && fraction.length > digits)
    return {
      ok: false,
      error:
        digits === 0
          ? `${currency} amounts have no fraction: enter whole ${currency}, like ${example}.`
          : `${currency} amounts have at most ${digits} digit${digits === 1 ? '' : 's'} after the point, like ${example}.`,
    };
  const units = `${whole.replaceAll(',', '')}${(fraction ?? '').padEnd(digits, '0')}`.replace(/^0+(?=.)/, '');
  // Compared as text of digits first, so a long string never becomes an inexact number.
  const max = String(MAX_AMOUNT);
  if (units.length > max.length || (units.length === max.length && units > max))
    return { ok: false, error: `Enter at most ${formatMoney(MAX_AMOUNT, currency)}.` };
  const minor = Number(units);
  if (minor < 1) return { ok: false, error: 'Enter an amount more than zero.' };
  return { ok: true, minor };
}

/** Minor units as a field's text in major units: 150050 NGN -> "1500.50" (what readAmount reads back). */
export const amountText = (minor: number | null | undefined, currency: string) =>
  minor === null || minor === undefined ? '' : toMajorUnits(minor, currency);
