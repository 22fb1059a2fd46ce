import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { MAX_AMOUNT, toMajorUnits } from '../../src/lib/money.js';
import { amountText, readAmount } from '../../src/modules/console/amount-input.js';

// An amount typed in major units is read exactly into minor units, by the currency's own minor digits.

const minor = (text: string, currency = 'NGN') => {
  const read = readAmount(text, currency);
  assert.ok(read.ok, `${text} ${currency}: ${read.ok ? '' : read.error}`);
  return read.minor;
};
const error = (text: string | undefined, currency = 'NGN') => {
  const read = readAmount(text, currency);
  assert.ok(!read.ok, `${text} ${currency} was read as ${read.ok ? read.minor : ''}`);
  return read.error;
};

describe('readAmount', () => {
  test('reads what people type, with or without grouping commas and fraction digits', () => {
    assert.equal(minor('1500'), 150_000);
    assert.equal(minor('1,500'), 150_000);
    assert.equal(minor('1,500.50'), 150_050);
    assert.equal(minor('1500.5'), 150_050);
    assert.equal(minor(' 12.34 '), 1_234);
    assert.equal(minor('0.01'), 1);
    assert.equal(minor('1,234,567.89'), 123_456_789);
    assert.equal(minor('007'), 700);
  });

  test("follows the currency's minor digits: none for JPY, three for KWD", () => {
    assert.equal(minor('1500', 'JPY'), 1_500);
    assert.equal(minor('1,500', 'JPY'), 1_500);
    assert.match(error('1500.5', 'JPY'), /JPY amounts have no fraction/);
    assert.equal(minor('1.234', 'KWD'), 1_234);
    assert.equal(minor('1.2', 'KWD'), 1_200);
    assert.match(error('1.2345', 'KWD'), /at most 3 digits after the point/);
  });

  test('too many fraction digits, words, signs and zero are errors in words, never a number', () => {
    assert.match(error('12.345'), /NGN amounts have at most 2 digits after the point/);
    assert.match(error('abc'), /in figures/);
    assert.match(error('-5'), /more than zero/);
    assert.match(error('0'), /more than zero/);
    assert.match(error('0.00'), /more than zero/);
    assert.match(error(''), /Enter an amount/);
    assert.match(error('   '), /Enter an amount/);
    assert.match(error(undefined), /Enter an amount/);
    for (const bad of [
      '1e3',
      '+5',
      '1.2.3',
      '.5',
      '5.',
      '1,50',
      '1,5000',
      ',100',
      '1 500',
      '0x10',
      'NaN',
      '١٢',
    ])
      assert.match(error(bad), /in figures/, bad);
  });

  test('refuses more than the largest amount the API takes, however many digits', () => {
    assert.equal(minor(toMajorUnits(MAX_AMOUNT, 'NGN')), MAX_AMOUNT);
    assert.match(error('10000000000.01'), /at most ₦10,000,000,000\.00/);
    assert.match(error('9'.repeat(400)), /at most/);
  });

  test('amountText writes what readAmount reads back, for any amount', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: MAX_AMOUNT }),
        fc.constantFrom('NGN', 'JPY', 'KWD', 'USD'),
        (amount, currency) => {
          assert.equal(minor(amountText(amount, currency), currency), amount);
        },
      ),
    );
    assert.equal(amountText(null, 'NGN'), '');
    assert.equal(amountText(150_050, 'NGN'), '1500.50');
  });
});
