import { minorUnitDigits } from '../../lib/money.js';

/**
 * How Stripe counts amounts, from its "Supported currencies" page (docs.stripe.com/currencies). Our amounts are
 * integers of the ISO minor unit (lib/money.ts); Stripe's are integers of its own unit per currency, which differ.
 */

/** "Zero-decimal currencies": "the charge and the amount are the same, without requiring multiplication". */
export const STRIPE_ZERO_DECIMAL: ReadonlySet<string> = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'JPY',
  'KMF',
  'KRW',
  'MGA',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);

/**
 * "Three-decimal currencies": supported for Payment Intents and Refunds, but "these API calls require the
 * least-significant (last) digit to be 0. Your integration must round amounts to the nearest ten." We refuse rather
 * than round: rounding would charge a different amount from the one owed.
 */
export const STRIPE_THREE_DECIMAL: ReadonlySet<string> = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/**
 * "Special cases". ISK: a zero-decimal currency in ISO, but "to maintain backwards compatibility, you must pass in
 * amounts with two decimals. The amount value must be evenly divisible by 100" (5 ISK is 500). HUF and TWD: "Stripe
 * treats HUF as a zero-decimal currency for payouts, even though you can charge two-decimal amounts": charges and
 * refunds keep two decimals, so they need no entry here.
 */
const SPECIAL_CASES: Readonly<Record<string, { exponent: number; multipleOf: number }>> = {
  ISK: { exponent: 2, multipleOf: 100 },
};

/**
 * "Minimum and maximum charge amounts", in Stripe's units of the charge currency (USD $0.50, GBP £0.30, JPY ¥50,
 * HUF 175.00 Ft ...). Stripe applies the minimum to the amount converted into the account's settlement currency;
 * we cannot know that conversion, so we refuse only what is below the charge currency's own figure.
 */
export const STRIPE_MINIMUM_CHARGE: Readonly<Record<string, number>> = {
  USD: 50,
  AED: 200,
  AUD: 50,
  BGN: 100,
  BRL: 50,
  CAD: 50,
  CHF: 50,
  CZK: 1500,
  DKK: 250,
  EUR: 50,
  GBP: 30,
  HKD: 400,
  HUF: 17500,
  INR: 50,
  JPY: 50,
  MXN: 1000,
  MYR: 200,
  NOK: 300,
  NZD: 50,
  PLN: 200,
  RON: 200,
  SEK: 300,
  SGD: 50,
};

/** Digits after the decimal point in Stripe's unit for the currency. */
export function stripeExponent(currency: string): number {
  const code = currency.toUpperCase();
  if (SPECIAL_CASES[code]) return SPECIAL_CASES[code].exponent;
  if (STRIPE_ZERO_DECIMAL.has(code)) return 0;
  if (STRIPE_THREE_DECIMAL.has(code)) return 3;
  return 2;
}

function multipleRequired(currency: string): number {
  const code = currency.toUpperCase();
  if (SPECIAL_CASES[code]) return SPECIAL_CASES[code].multipleOf;
  if (STRIPE_THREE_DECIMAL.has(code)) return 10;
  return 1;
}

export type StripeAmount = { ok: true; amount: number } | { ok: false; reason: string };

/** Our minor units as Stripe's, exactly, or why Stripe cannot take the amount. */
export function toStripeAmount(amount: number, currency: string): StripeAmount {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    return { ok: false, reason: `amount must be a positive integer of minor units, got ${amount}` };
  }
  const shift = stripeExponent(currency) - minorUnitDigits(currency.toUpperCase());
  let converted: number;
  if (shift >= 0) {
    converted = amount * 10 ** shift;
    if (!Number.isSafeInteger(converted)) return { ok: false, reason: `amount ${amount} is too large` };
  } else {
    const divisor = 10 ** -shift;
    if (amount % divisor !== 0) {
      return {
        ok: false,
        reason: `${currency.toUpperCase()} amounts must be whole multiples of ${divisor} minor units for Stripe`,
      };
    }
    converted = amount / divisor;
  }
  const multiple = multipleRequired(currency);
  if (converted % multiple !== 0) {
    return {
      ok: false,
      reason: `Stripe takes ${currency.toUpperCase()} amounts only in multiples of ${multiple} of its unit; ${amount} would have to be rounded`,
    };
  }
  return { ok: true, amount: converted };
}

/** Stripe's units back into ours (webhook and lookup amounts). */
export function fromStripeAmount(amount: number, currency: string): number {
  const shift = stripeExponent(currency) - minorUnitDigits(currency.toUpperCase());
  return shift >= 0 ? Math.trunc(amount / 10 ** shift) : amount * 10 ** -shift;
}

/** Stripe's minimum charge for the currency, in Stripe's units, when the amount is below it; else null. */
export function belowStripeMinimum(stripeAmount: number, currency: string): number | null {
  const minimum = STRIPE_MINIMUM_CHARGE[currency.toUpperCase()];
  return minimum !== undefined && stripeAmount < minimum ? minimum : null;
}
