import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  addExact,
  formatMoney,
  isCurrency,
  MAX_AMOUNT,
  minorUnitDigits,
  toMajorUnits,
  toSafeInteger,
  UnsafeIntegerError,
} from '../../src/lib/money.js';

describe('isCurrency', () => {
  test('accepts real ISO 4217 codes', () => {
    for (const code of ['NGN', 'KES', 'USD', 'EUR', 'GHS', 'ZAR', 'JPY', 'KWD'])
      assert.equal(isCurrency(code), true, code);
  });

  test('refuses codes that are not on the list or not upper case', () => {
    for (const code of ['ABC', 'XYZ', 'usd', 'Ngn', 'US', 'USDD', '', ' USD'])
      assert.equal(isCurrency(code), false, code);
  });
});

describe('minorUnitDigits', () => {
  test('follows the currency minor unit', () => {
    assert.equal(minorUnitDigits('JPY'), 0);
    assert.equal(minorUnitDigits('KWD'), 3);
    assert.equal(minorUnitDigits('NGN'), 2);
    assert.equal(minorUnitDigits('USD'), 2);
  });
});

describe('toMajorUnits', () => {
  test("writes minor units as a decimal in major units with the currency's exponent", () => {
    assert.equal(toMajorUnits(150_000, 'NGN'), '1500.00');
    assert.equal(toMajorUnits(1_500, 'JPY'), '1500');
    assert.equal(toMajorUnits(1_234_567, 'KWD'), '1234.567');
    assert.equal(toMajorUnits(7, 'USD'), '0.07');
    assert.equal(toMajorUnits(0, 'NGN'), '0.00');
    assert.equal(toMajorUnits(0, 'JPY'), '0');
    assert.equal(toMajorUnits(-5, 'NGN'), '-0.05');
    assert.equal(toMajorUnits(-150_000, 'NGN'), '-1500.00');
    assert.equal(toMajorUnits(-1_500, 'JPY'), '-1500');
    assert.equal(toMajorUnits(Number.MAX_SAFE_INTEGER, 'USD'), '90071992547409.91');
  });

  test('is exact: the digits read back give the same integer, for any safe integer', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
        fc.constantFrom('NGN', 'JPY', 'KWD', 'USD'),
        (minor, currency) => {
          const text = toMajorUnits(minor, currency);
          assert.match(text, /^-?[0-9]+(\.[0-9]+)?$/);
          assert.equal((text.split('.')[1] ?? '').length, minorUnitDigits(currency));
          assert.equal(BigInt(text.replace('.', '')), BigInt(minor));
        },
      ),
    );
  });

  test('refuses what is not an integer', () => {
    assert.throws(() => toMajorUnits(1.5, 'NGN'));
    assert.throws(() => toMajorUnits(Number.MAX_SAFE_INTEGER + 1, 'NGN'));
  });
});

describe('toSafeInteger', () => {
  test('reads numbers, bigints and numeric strings from the database', () => {
    assert.equal(toSafeInteger(42), 42);
    assert.equal(toSafeInteger(42n), 42);
    assert.equal(toSafeInteger('1000000000000'), MAX_AMOUNT);
    assert.equal(toSafeInteger('-250'), -250);
    assert.equal(toSafeInteger(String(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER);
  });

  test('refuses values that are not safe integers, naming what was read', () => {
    assert.throws(() => toSafeInteger('9007199254740993', 'balance'), /balance is not a safe integer/);
    assert.throws(() => toSafeInteger(2n ** 60n), /not a safe integer/);
    assert.throws(() => toSafeInteger(1.5), /not a safe integer/);
    for (const loose of ['', ' 42 ', '0x10', '1e3', '12.0']) {
      assert.throws(() => toSafeInteger(loose), /not a safe integer/, JSON.stringify(loose));
    }
    assert.throws(() => toSafeInteger('12.5'), /not a safe integer/);
    assert.throws(() => toSafeInteger('abc'), /not a safe integer/);
    assert.throws(() => toSafeInteger(null), /not a safe integer/);
    assert.throws(() => toSafeInteger(undefined), /not a safe integer/);
  });
});

describe('past 2^53 - 1', () => {
  test('toSafeInteger refuses an integer out of range with UnsafeIntegerError, anything else with a plain error', () => {
    assert.throws(() => toSafeInteger('9007199254740992'), UnsafeIntegerError);
    assert.throws(() => toSafeInteger('-9007199254740992'), UnsafeIntegerError);
    assert.throws(() => toSafeInteger(2n ** 53n), UnsafeIntegerError);
    assert.throws(() => toSafeInteger(2 ** 53), UnsafeIntegerError);
    assert.throws(
      () => toSafeInteger('abc'),
      (error: unknown) => error instanceof Error && !(error instanceof UnsafeIntegerError),
    );
  });

  test('addExact adds exactly up to 2^53 - 1 either way and refuses past it, naming the exact sum', () => {
    assert.equal(addExact(Number.MAX_SAFE_INTEGER - MAX_AMOUNT, MAX_AMOUNT), Number.MAX_SAFE_INTEGER);
    assert.equal(addExact(-Number.MAX_SAFE_INTEGER + 1, -1), -Number.MAX_SAFE_INTEGER);
    assert.throws(() => addExact(Number.MAX_SAFE_INTEGER, 1), UnsafeIntegerError);
    assert.throws(() => addExact(Number.MAX_SAFE_INTEGER, 2), /9007199254740993/);
    assert.throws(() => addExact(-Number.MAX_SAFE_INTEGER, -1), UnsafeIntegerError);
    assert.throws(() => addExact(0.5, 1), /not a sum of safe integers/);
  });
});

describe('formatMoney', () => {
  test('minor units in the currency form: two, zero and three decimals', () => {
    assert.equal(formatMoney(150_000, 'NGN'), '₦1,500.00');
    assert.equal(formatMoney(1_500, 'JPY'), '¥1,500');
    assert.equal(formatMoney(1_234_567, 'KWD'), 'KWD\u00a01,234.567');
    assert.equal(formatMoney(5, 'USD'), '$0.05');
    assert.equal(formatMoney(99_999_999_999_999, 'USD'), '$999,999,999,999.99');
  });

  test('the signs people write: cedi, rupee, euro, pound, and KSh for the Kenyan shilling', () => {
    assert.equal(formatMoney(150_000, 'GHS'), 'GH₵1,500.00');
    assert.equal(formatMoney(150_000, 'INR'), '₹1,500.00');
    assert.equal(formatMoney(150_000, 'EUR'), '€1,500.00');
    assert.equal(formatMoney(150_000, 'GBP'), '£1,500.00');
    assert.equal(formatMoney(150_000, 'KES'), 'KSh\u00a01,500.00');
    assert.equal(formatMoney(-150_000, 'KES'), '-KSh\u00a01,500.00');
  });
});
