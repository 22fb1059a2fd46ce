/** Money is an integer count of the currency's minor unit; these helpers keep it that way. */

export const MAX_AMOUNT = 1_000_000_000_000;

const currencies = new Set(Intl.supportedValuesOf('currency'));

export function isCurrency(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && currencies.has(code);
}

/** Digits after the decimal point in the currency's minor unit (NGN 2, JPY 0, KWD 3). */
export function minorUnitDigits(currency: string): number {
  return (
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
  );
}

/** Parses a database integer (number, bigint or numeric string) into a safe integer, or throws. */
export function toSafeInteger(value: unknown, what = 'value'): number {
  const n =
    typeof value === 'bigint'
      ? Number(value)
      : typeof value === 'string'
        ? /^-?[0-9]+$/.test(value)
          ? Number(value)
          : Number.NaN
        : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) {
    throw new Error(`${what} is not a safe integer: ${String(value)}`);
  }
  return n;
}

/**
 * An amount of minor units as people read it, in the currency's own form (150000 NGN: "₦1,500.00"; 1500 JPY:
 * "¥1,500"). The decimal string goes to Intl whole, so no float ever holds the amount.
 */
export function formatMoney(minor: number, currency: string, locale = 'en'): string {
  const digits = minorUnitDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const units = String(Math.abs(minor)).padStart(digits + 1, '0');
  const decimal = digits === 0 ? units : `${units.slice(0, -digits)}.${units.slice(-digits)}`;
  const format = new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    currencyDisplay: 'narrowSymbol',
  });
  return format.format(`${sign}${decimal}` as unknown as number);
}
