/** Money is an integer count of the currency's minor unit; these helpers keep it that way. */

export const MAX_AMOUNT = 1_000_000_000_000;

const currencies = new Set(Intl.supportedValuesOf('currency'));

export function isCurrency(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && currencies.has(code);
}

const digitsByCurrency = new Map<string, number>();

/** Digits after the decimal point in the currency's minor unit (NGN 2, JPY 0, KWD 3). */
export function minorUnitDigits(currency: string): number {
  let digits = digitsByCurrency.get(currency);
  if (digits === undefined) {
    digits =
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
      2;
    digitsByCurrency.set(currency, digits);
  }
  return digits;
}

/**
 * An integer of minor units as a decimal string in major units, with the currency's exponent: 150000 NGN is
 * "1500.00", 1500 JPY "1500", -5 NGN "-0.05". Done on the integer's digits, so no float ever holds the amount.
 */
export function toMajorUnits(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) throw new Error(`not an amount of minor units: ${minor}`);
  const digits = minorUnitDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const units = String(Math.abs(minor)).padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${units}` : `${sign}${units.slice(0, -digits)}.${units.slice(-digits)}`;
}

/**
 * An integer past 2^53 - 1 either way: a JS number cannot hold it exactly, nor a JSON number as most clients read
 * it. Reports turn it into a clear error rather than answer a rounded figure.
 */
export class UnsafeIntegerError extends RangeError {}

const INTEGER_TEXT = /^-?[0-9]+$/;

/** Parses a database integer (number, bigint or numeric string) into a safe integer, or throws. */
export function toSafeInteger(value: unknown, what = 'value'): number {
  const n =
    typeof value === 'bigint'
      ? Number(value)
      : typeof value === 'string'
        ? INTEGER_TEXT.test(value)
          ? Number(value)
          : Number.NaN
        : value;
  if (typeof n === 'number' && Number.isSafeInteger(n)) return n;
  const outOfRange = typeof value === 'bigint' || (typeof n === 'number' && Number.isInteger(n));
  const message = `${what} is not a safe integer: ${String(value)}`;
  throw outOfRange ? new UnsafeIntegerError(message) : new Error(message);
}

/** `a + b` of safe integers, exactly; an UnsafeIntegerError naming the exact sum when it is past 2^53 - 1. */
export function addExact(a: number, b: number, what = 'sum'): number {
  if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b)) {
    throw new Error(`${what}: ${a} + ${b} is not a sum of safe integers`);
  }
  const sum = a + b;
  if (!Number.isSafeInteger(sum)) {
    throw new UnsafeIntegerError(`${what} is not a safe integer: ${BigInt(a) + BigInt(b)}`);
  }
  return sum;
}

/**
 * An amount of minor units as people read it, in the currency's own form (150000 NGN: "₦1,500.00"; 1500 JPY:
 * "¥1,500"). The decimal string goes to Intl whole, so no float ever holds the amount.
 */
export function formatMoney(minor: number, currency: string, locale = 'en'): string {
  const key = `${locale} ${currency}`;
  let format = moneyFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: 'narrowSymbol' });
    moneyFormats.set(key, format);
  }
  const major = toMajorUnits(minor, currency) as unknown as number;
  const sign = LOCAL_SIGNS[currency];
  if (!sign) return format.format(major);
  return format
    .formatToParts(major)
    .map((part) => (part.type === 'currency' ? sign : part.value))
    .join('');
}

/**
 * Signs people write that Intl's English leaves as the ISO code: the Kenyan shilling is "KSh 1,500.00" on
 * price tags, receipts and the Central Bank's own notes, not "KES 1,500.00".
 */
const LOCAL_SIGNS: Readonly<Record<string, string>> = { KES: 'KSh' };

/** Formatters by locale and currency, made once: making one costs far more than formatting with it. */
const moneyFormats = new Map<string, Intl.NumberFormat>();
