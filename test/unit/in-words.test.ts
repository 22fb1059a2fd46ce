import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { textOn } from '../../src/http/html-page.js';
import {
  dayInWords,
  instantInWords,
  listInWords,
  phoneInWords,
  zoneInWords,
} from '../../src/lib/in-words.js';
import { amountsInWords, cadenceOf } from '../../src/modules/mandates/consent.terms.js';
import { providerDisplayName } from '../../src/modules/providers/providers.service.js';

describe('words for people', () => {
  test('dates with their weekday, instants on the local clock with the zone named', () => {
    assert.equal(dayInWords('2026-11-26'), 'Thursday 26 November 2026');
    assert.equal(dayInWords('2028-02-29'), 'Tuesday 29 February 2028');
    assert.equal(
      instantInWords('2026-11-27T13:00:00.000Z', 'Africa/Lagos'),
      '27 Nov 2026, 14:00 (Lagos time)',
    );
    // Past midnight in Lagos while still the day before in UTC.
    assert.equal(
      instantInWords('2026-11-27T23:30:00.000Z', 'Africa/Lagos'),
      '28 Nov 2026, 00:30 (Lagos time)',
    );
    assert.equal(instantInWords('2026-11-27T13:00:00.000Z', 'UTC'), '27 Nov 2026, 13:00 (UTC)');
    assert.equal(zoneInWords('America/Argentina/Buenos_Aires'), 'Buenos Aires time');
    assert.equal(zoneInWords('Etc/GMT+1'), 'GMT+1');
  });

  test('phones as dialled from abroad, lists as sentences', () => {
    assert.equal(phoneInWords('+2348031234567'), '+234 803 123 4567');
    assert.equal(phoneInWords('not a phone'), 'not a phone');
    assert.deepEqual(
      [[], ['a'], ['a', 'b'], ['a', 'b', 'c']].map((items) => listInWords(items)),
      ['', 'a', 'a and b', 'a, b and c'],
    );
  });

  test('amounts grouped where they repeat, the odd first and last named', () => {
    assert.equal(amountsInWords([1_500_000], 'NGN'), 'one payment of ₦15,000.00');
    assert.equal(amountsInWords([1_500_000, 1_500_000, 1_500_000], 'NGN'), '3 payments of ₦15,000.00');
    assert.equal(
      amountsInWords([1_500_000, 1_500_000, 1_500_001], 'NGN'),
      '2 payments of ₦15,000.00 and a last payment of ₦15,000.01',
    );
    assert.equal(
      amountsInWords([500, 1_500, 1_500, 700, 900], 'NGN'),
      'a first payment of ₦5.00, 2 payments of ₦15.00, one payment of ₦7.00 and a last payment of ₦9.00',
    );
    assert.equal(amountsInWords([1_500, 1_500], 'JPY'), '2 payments of ¥1,500');
  });

  test('how often, and providers by the names payers know', () => {
    assert.deepEqual(
      [
        cadenceOf('monthly', 1),
        cadenceOf('monthly', 3),
        cadenceOf('weekly', null),
        cadenceOf('daily', 2),
        cadenceOf('installment_sequence', null),
        cadenceOf('one_time', null),
      ],
      ['every month', 'every 3 months', 'every week', 'every 2 days', 'every month', null],
    );
    assert.deepEqual(['paystack', 'stripe', 'gatewayA', 'gatewayB', 'acme-pay'].map(providerDisplayName), [
      'Paystack',
      'Stripe',
      'Gateway A',
      'Gateway B',
      'acme-pay',
    ]);
  });
});

describe('brand colours', () => {
  test('white or black text on any brand colour reaches WCAG AA (4.5:1)', () => {
    let least = Number.POSITIVE_INFINITY;
    for (let r = 0; r < 256; r += 5) {
      for (let g = 0; g < 256; g += 5) {
        for (let b = 0; b < 256; b += 5) {
          const hex = `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
          least = Math.min(least, textOn(hex).ratio);
        }
      }
    }
    assert.ok(least >= 4.5, `the least contrast is ${least}`);
    assert.deepEqual(
      [textOn('#0b6e4f').color, textOn('#ffd400').color, textOn('#1558b0').color],
      ['#fff', '#000', '#fff'],
    );
  });
});
