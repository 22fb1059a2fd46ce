import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  addDays,
  allocateOldestFirst,
  DateOutOfRangeError,
  daysBetween,
  firstOccurrenceOnOrAfter,
  installmentAmounts,
  isTimeZone,
  localDate,
  localDateIn,
  occurrence,
  occurrencesThrough,
  type Recurrence,
  type RecurrenceUnit,
  splitEvenly,
  startOfDay,
  startOfFollowingDay,
} from '../../src/lib/calendar.js';

const ZONES = [
  'UTC',
  'Africa/Lagos',
  'America/New_York',
  'Europe/London',
  'Pacific/Auckland',
  'Asia/Kolkata',
];

/** Days in a month, worked out with Date rather than Temporal so the tests do not check Temporal against itself. */
function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function dateOf(year: number, month: number, day: number): string {
  return new Date(Date.UTC(year, month - 1, day)).toISOString().slice(0, 10);
}

/** A date from 1970 to 2200. */
const anyDate = fc
  .integer({ min: 0, max: daysBetween('1970-01-01', '2200-12-31') })
  .map((days) => addDays('1970-01-01', days));

/** The last few days of a month, including Feb 28/29 of leap and common years. */
const monthEndDate = fc
  .record({
    year: fc.integer({ min: 1970, max: 2200 }),
    month: fc.integer({ min: 1, max: 12 }),
    back: fc.nat(3),
  })
  .map(({ year, month, back }) => dateOf(year, month, daysInMonth(year, month) - back));

const anchorDate = fc.oneof(anyDate, monthEndDate);

const anyRule: fc.Arbitrary<Recurrence> = fc.record({
  unit: fc.constantFrom<RecurrenceUnit>('day', 'week', 'month'),
  every: fc.integer({ min: 1, max: 12 }),
  anchor: anchorDate,
});

function occurrences(rule: Recurrence, count: number): string[] {
  return Array.from({ length: count }, (_, n) => occurrence(rule, n));
}

describe('addDays and daysBetween', () => {
  test('cross month, year and leap day boundaries', () => {
    assert.equal(addDays('2028-02-28', 1), '2028-02-29');
    assert.equal(addDays('2027-02-28', 1), '2027-03-01');
    assert.equal(addDays('2027-12-31', 1), '2028-01-01');
    assert.equal(addDays('2028-01-01', -1), '2027-12-31');
    assert.equal(addDays('2027-05-05', 0), '2027-05-05');
    assert.equal(daysBetween('2028-01-01', '2029-01-01'), 366);
    assert.equal(daysBetween('2029-01-01', '2028-01-01'), -366);
    assert.equal(daysBetween('2100-02-28', '2100-03-01'), 1);
    assert.equal(daysBetween('2000-02-28', '2000-03-01'), 2);
  });

  test('refuses anything but YYYY-MM-DD dates that exist', () => {
    for (const bad of ['2027-02-29', '2027-13-01', '20270101', '2027-1-1', '2027-01-01T00:00', ''])
      assert.throws(() => addDays(bad, 1), RangeError, bad);
    assert.throws(() => addDays('2027-01-01', 1.5), RangeError);
  });

  test('property: daysBetween undoes addDays', () => {
    fc.assert(
      fc.property(anyDate, fc.integer({ min: -100_000, max: 100_000 }), (date, days) => {
        assert.equal(daysBetween(date, addDays(date, days)), days);
      }),
    );
  });
});

describe('isTimeZone', () => {
  test('accepts IANA names, including links and any letter case Temporal resolves', () => {
    for (const zone of [
      'UTC',
      'Africa/Lagos',
      'America/New_York',
      'Asia/Kolkata',
      'Asia/Calcutta',
      'US/Eastern',
      'Etc/GMT+1',
      'GMT',
      'utc',
      'africa/lagos',
    ])
      assert.equal(isTimeZone(zone), true, zone);
  });

  test('refuses unknown names, fixed offsets and ISO strings', () => {
    for (const zone of ['Mars/Olympus', '', ' UTC', 'UTC ', 'Z', '+01:00', '-05', '2020-01-01T00:00Z[UTC]'])
      assert.equal(isTimeZone(zone), false, zone);
  });
});

describe('localDate and startOfDay', () => {
  test('localDate reads the date where the instant happens', () => {
    // 2027-03-14T04:30Z is 23:30 EST the evening before New York springs forward (02:00 EST = 07:00Z).
    assert.equal(localDate('2027-03-14T04:30:00.000Z', 'America/New_York'), '2027-03-13');
    assert.equal(localDate('2027-03-14T05:00:00.000Z', 'America/New_York'), '2027-03-14');
    assert.equal(localDate(new Date('2027-03-14T04:30:00.000Z'), 'America/New_York'), '2027-03-13');
    assert.equal(localDate('2027-03-14T04:30:00.000Z', 'UTC'), '2027-03-14');
    assert.equal(localDate('2027-05-31T23:30:00.000Z', 'Africa/Lagos'), '2027-06-01');
    assert.equal(localDate('2027-05-31T18:29:59.999Z', 'Asia/Kolkata'), '2027-05-31');
    assert.equal(localDate('2027-05-31T18:30:00.000Z', 'Asia/Kolkata'), '2027-06-01');
  });

  test('localDateIn gives what localDate gives, for any instant from 1970 to 2100 in any zone', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Date.UTC(2100, 0, 1) }),
        fc.constantFrom(...ZONES),
        (ms, zone) => localDateIn(zone)(new Date(ms)) === localDate(new Date(ms), zone),
      ),
      { numRuns: 2000 },
    );
  });

  test('New York: midnight in EST on the spring forward day, in EDT on the fall back day', () => {
    assert.equal(startOfDay('2027-03-14', 'America/New_York'), '2027-03-14T05:00:00.000Z');
    assert.equal(startOfDay('2027-11-07', 'America/New_York'), '2027-11-07T04:00:00.000Z');
  });

  test('London: GMT midnight on the day BST starts, BST in summer', () => {
    assert.equal(startOfDay('2027-03-28', 'Europe/London'), '2027-03-28T00:00:00.000Z');
    assert.equal(startOfDay('2027-06-01', 'Europe/London'), '2027-05-31T23:00:00.000Z');
  });

  test('Auckland: NZST (+12) in June, NZDT (+13) in December', () => {
    assert.equal(startOfDay('2027-06-01', 'Pacific/Auckland'), '2027-05-31T12:00:00.000Z');
    assert.equal(startOfDay('2027-12-01', 'Pacific/Auckland'), '2027-11-30T11:00:00.000Z');
  });

  test('where midnight is skipped, the day starts at 01:00 local', () => {
    // Past dates, so later tz database updates cannot change them. Chile jumps 00:00 -04 to 01:00 -03.
    assert.equal(startOfDay('2024-09-08', 'America/Santiago'), '2024-09-08T04:00:00.000Z');
    assert.equal(localDate('2024-09-08T04:00:00.000Z', 'America/Santiago'), '2024-09-08');
    assert.equal(localDate('2024-09-08T03:59:59.999Z', 'America/Santiago'), '2024-09-07');
    // Lebanon jumps 00:00 +02 to 01:00 +03.
    assert.equal(startOfDay('2024-03-31', 'Asia/Beirut'), '2024-03-30T22:00:00.000Z');
    assert.equal(localDate('2024-03-30T21:59:59.999Z', 'Asia/Beirut'), '2024-03-30');
    // The day before in Chile still starts at midnight, -04.
    assert.equal(startOfDay('2024-09-07', 'America/Santiago'), '2024-09-07T04:00:00.000Z');
  });

  test('refuses unknown zones and malformed instants', () => {
    assert.throws(() => startOfDay('2027-01-01', 'Mars/Olympus'), RangeError);
    assert.throws(() => localDate('2027-01-01T00:00:00.000Z', 'Mars/Olympus'), RangeError);
    assert.throws(() => localDate('2027-01-01T00:00:00', 'UTC'), RangeError);
    assert.throws(() => localDate(new Date(Number.NaN), 'UTC'), RangeError);
  });

  test('property: a day starts on that day, and the instant before it is the day before', () => {
    fc.assert(
      fc.property(anyDate, fc.constantFrom(...ZONES), (date, zone) => {
        const start = startOfDay(date, zone);
        assert.match(start, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        assert.equal(localDate(start, zone), date);
        assert.equal(localDate(new Date(Date.parse(start) - 1), zone), addDays(date, -1));
      }),
    );
  });
});

describe('occurrence', () => {
  test('monthly from Jan 31 clamps to each month end and comes back (2028 is a leap year)', () => {
    assert.deepEqual(occurrences({ unit: 'month', every: 1, anchor: '2028-01-31' }, 6), [
      '2028-01-31',
      '2028-02-29',
      '2028-03-31',
      '2028-04-30',
      '2028-05-31',
      '2028-06-30',
    ]);
    assert.equal(occurrence({ unit: 'month', every: 1, anchor: '2027-01-31' }, 1), '2027-02-28');
    assert.deepEqual(occurrences({ unit: 'month', every: 1, anchor: '2027-01-30' }, 3), [
      '2027-01-30',
      '2027-02-28',
      '2027-03-30',
    ]);
  });

  test('every 2 months', () => {
    assert.deepEqual(occurrences({ unit: 'month', every: 2, anchor: '2027-12-31' }, 5), [
      '2027-12-31',
      '2028-02-29',
      '2028-04-30',
      '2028-06-30',
      '2028-08-31',
    ]);
  });

  test('2100 is not a leap year, 2000 is', () => {
    assert.equal(occurrence({ unit: 'month', every: 12, anchor: '2096-02-29' }, 4), '2100-02-28');
    assert.equal(occurrence({ unit: 'month', every: 12, anchor: '2096-02-29' }, 8), '2104-02-29');
    assert.equal(occurrence({ unit: 'month', every: 1, anchor: '2100-01-31' }, 1), '2100-02-28');
    assert.equal(occurrence({ unit: 'month', every: 1, anchor: '2000-01-31' }, 1), '2000-02-29');
    assert.equal(occurrence({ unit: 'day', every: 1, anchor: '2100-02-28' }, 1), '2100-03-01');
    assert.equal(occurrence({ unit: 'day', every: 1, anchor: '2000-02-28' }, 1), '2000-02-29');
  });

  test('weekly, daily and every 3 days', () => {
    assert.deepEqual(occurrences({ unit: 'week', every: 1, anchor: '2027-12-20' }, 4), [
      '2027-12-20',
      '2027-12-27',
      '2028-01-03',
      '2028-01-10',
    ]);
    assert.deepEqual(occurrences({ unit: 'week', every: 2, anchor: '2028-02-15' }, 3), [
      '2028-02-15',
      '2028-02-29',
      '2028-03-14',
    ]);
    assert.deepEqual(occurrences({ unit: 'day', every: 1, anchor: '2028-02-27' }, 4), [
      '2028-02-27',
      '2028-02-28',
      '2028-02-29',
      '2028-03-01',
    ]);
    assert.deepEqual(occurrences({ unit: 'day', every: 3, anchor: '2027-02-26' }, 4), [
      '2027-02-26',
      '2027-03-01',
      '2027-03-04',
      '2027-03-07',
    ]);
  });

  test('refuses a negative or fractional n and an interval below 1', () => {
    const rule: Recurrence = { unit: 'month', every: 1, anchor: '2027-01-31' };
    assert.throws(() => occurrence(rule, -1), RangeError);
    assert.throws(() => occurrence(rule, 0.5), RangeError);
    assert.throws(() => occurrence({ ...rule, every: 0 }, 1), RangeError);
  });

  test('property: occurrences strictly increase, so no two share a due date', () => {
    fc.assert(
      fc.property(anyRule, (rule) => {
        const dates = occurrences(rule, 40);
        for (let n = 1; n < dates.length; n++)
          assert.ok(dates[n - 1]! < dates[n]!, `${dates[n - 1]} ${dates[n]}`);
      }),
    );
  });

  test('property: day and week occurrences are exactly n*every days or weeks apart from the anchor', () => {
    fc.assert(
      fc.property(anyRule, fc.nat(5_000), (rule, n) => {
        fc.pre(rule.unit !== 'month');
        const days = n * rule.every * (rule.unit === 'week' ? 7 : 1);
        assert.equal(daysBetween(rule.anchor, occurrence(rule, n)), days);
      }),
    );
  });

  test('property: monthly keeps the anchor day of month when the month has it, else takes its last day', () => {
    fc.assert(
      fc.property(anchorDate, fc.integer({ min: 1, max: 12 }), fc.nat(1_200), (anchor, every, n) => {
        const [year, month, day] = anchor.split('-').map(Number) as [number, number, number];
        const monthIndex = month - 1 + n * every;
        const targetYear = year + Math.floor(monthIndex / 12);
        const targetMonth = (monthIndex % 12) + 1;
        const expected = dateOf(targetYear, targetMonth, Math.min(day, daysInMonth(targetYear, targetMonth)));
        assert.equal(occurrence({ unit: 'month', every, anchor }, n), expected);
      }),
    );
  });
});

describe('firstOccurrenceOnOrAfter', () => {
  test('month ends', () => {
    const rule: Recurrence = { unit: 'month', every: 1, anchor: '2028-01-31' };
    assert.equal(firstOccurrenceOnOrAfter(rule, '2027-06-01'), 0);
    assert.equal(firstOccurrenceOnOrAfter(rule, '2028-01-31'), 0);
    assert.equal(firstOccurrenceOnOrAfter(rule, '2028-02-01'), 1);
    assert.equal(firstOccurrenceOnOrAfter(rule, '2028-02-29'), 1);
    assert.equal(firstOccurrenceOnOrAfter(rule, '2028-03-01'), 2);
    assert.equal(firstOccurrenceOnOrAfter(rule, '2028-03-31'), 2);
    assert.equal(firstOccurrenceOnOrAfter(rule, '2028-04-01'), 3);
  });

  test('day and week rules', () => {
    assert.equal(firstOccurrenceOnOrAfter({ unit: 'day', every: 3, anchor: '2027-01-01' }, '2027-01-04'), 1);
    assert.equal(firstOccurrenceOnOrAfter({ unit: 'day', every: 3, anchor: '2027-01-01' }, '2027-01-05'), 2);
    assert.equal(firstOccurrenceOnOrAfter({ unit: 'week', every: 2, anchor: '2027-01-01' }, '2027-01-15'), 1);
    assert.equal(firstOccurrenceOnOrAfter({ unit: 'week', every: 2, anchor: '2027-01-01' }, '2027-01-16'), 2);
  });

  test('thousands of units after the anchor, quickly', () => {
    const started = performance.now();
    const daily: Recurrence = { unit: 'day', every: 1, anchor: '1970-01-01' };
    assert.equal(firstOccurrenceOnOrAfter(daily, '9999-12-31'), daysBetween('1970-01-01', '9999-12-31'));
    const monthly: Recurrence = { unit: 'month', every: 1, anchor: '1970-01-31' };
    const n = firstOccurrenceOnOrAfter(monthly, '9999-12-31');
    assert.equal(n, (9999 - 1970) * 12 + 11);
    assert.equal(occurrence(monthly, n), '9999-12-31');
    assert.equal(firstOccurrenceOnOrAfter(monthly, '9999-03-01'), (9999 - 1970) * 12 + 2);
    assert.ok(performance.now() - started < 500);
  });

  test('property: the first occurrence on or after the date, and the one before is before it', () => {
    fc.assert(
      fc.property(anyRule, anyDate, (rule, date) => {
        const n = firstOccurrenceOnOrAfter(rule, date);
        assert.ok(Number.isSafeInteger(n) && n >= 0);
        assert.ok(occurrence(rule, n) >= date, `${occurrence(rule, n)} ${date}`);
        if (n > 0) assert.ok(occurrence(rule, n - 1) < date, `${occurrence(rule, n - 1)} ${date}`);
      }),
    );
  });

  test('property: agrees with counting occurrences one by one near the anchor', () => {
    fc.assert(
      fc.property(anyRule, fc.integer({ min: -40, max: 800 }), (rule, offset) => {
        const date = addDays(rule.anchor, offset);
        let n = 0;
        while (occurrence(rule, n) < date) n++;
        assert.equal(firstOccurrenceOnOrAfter(rule, date), n);
      }),
    );
  });
});

describe('the last date kept, 9999-12-31', () => {
  test('no date or instant past it is printed: each function refuses with DateOutOfRangeError', () => {
    assert.equal(addDays('9999-12-30', 1), '9999-12-31');
    assert.throws(() => addDays('9999-12-31', 1), DateOutOfRangeError);
    assert.equal(occurrence({ unit: 'month', every: 1, anchor: '9999-01-31' }, 11), '9999-12-31');
    assert.throws(
      () => occurrence({ unit: 'month', every: 1, anchor: '9999-01-31' }, 12),
      DateOutOfRangeError,
    );
    assert.equal(localDate('9999-12-31T23:59:59.999Z', 'UTC'), '9999-12-31');
    assert.throws(() => localDate('9999-12-31T12:00:00Z', 'Pacific/Kiritimati'), DateOutOfRangeError);
    assert.throws(() => localDateIn('Pacific/Kiritimati')('9999-12-31T12:00:00Z'), DateOutOfRangeError);
    assert.equal(startOfDay('9999-12-31', 'America/Los_Angeles'), '9999-12-31T08:00:00.000Z');
  });

  test('startOfFollowingDay: the next day starts in the zone, or the last instant kept when that is later', () => {
    assert.equal(startOfFollowingDay('2028-02-28', 'UTC'), '2028-02-29T00:00:00.000Z');
    assert.equal(startOfFollowingDay('2028-03-31', 'Africa/Lagos'), '2028-03-31T23:00:00.000Z');
    assert.equal(startOfFollowingDay('9999-12-31', 'Africa/Lagos'), '9999-12-31T23:00:00.000Z');
    assert.equal(startOfFollowingDay('9999-12-31', 'UTC'), '9999-12-31T23:59:59.999Z');
    assert.equal(startOfFollowingDay('9999-12-31', 'America/New_York'), '9999-12-31T23:59:59.999Z');
  });

  test('occurrencesThrough counts the occurrences on or before a date, 9999-12-31 by default', () => {
    assert.equal(occurrencesThrough({ unit: 'day', every: 1, anchor: '9999-12-01' }), 31);
    assert.equal(occurrencesThrough({ unit: 'month', every: 1, anchor: '9999-01-31' }), 12);
    assert.equal(occurrencesThrough({ unit: 'week', every: 1, anchor: '9999-12-25' }), 1);
    assert.equal(occurrencesThrough({ unit: 'day', every: 3, anchor: '2028-01-01' }, '2028-01-07'), 3);
    assert.equal(occurrencesThrough({ unit: 'day', every: 1, anchor: '2028-01-02' }, '2028-01-01'), 0);
  });

  test('property: occurrencesThrough is the first sequence number whose date is after the date', () => {
    fc.assert(
      fc.property(anyRule, fc.integer({ min: -40, max: 800 }), (rule, offset) => {
        const date = addDays(rule.anchor, offset);
        const n = occurrencesThrough(rule, date);
        assert.ok(occurrence(rule, n) > date);
        if (n > 0) assert.ok(occurrence(rule, n - 1) <= date);
      }),
    );
  });
});

describe('splitEvenly', () => {
  test('larger parts first', () => {
    assert.deepEqual(splitEvenly(10, 3), [4, 3, 3]);
    assert.deepEqual(splitEvenly(11, 3), [4, 4, 3]);
    assert.deepEqual(splitEvenly(2, 4), [1, 1, 0, 0]);
    assert.deepEqual(splitEvenly(0, 2), [0, 0]);
    assert.deepEqual(splitEvenly(1_000_000_000_000, 1), [1_000_000_000_000]);
  });

  test('refuses parts below 1, a negative total and fractions', () => {
    assert.throws(() => splitEvenly(10, 0), RangeError);
    assert.throws(() => splitEvenly(-1, 2), RangeError);
    assert.throws(() => splitEvenly(10.5, 2), RangeError);
  });

  test('property: sums exactly, has `parts` items that differ by at most 1, larger first', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000_000_000 }),
        fc.integer({ min: 1, max: 500 }),
        (total, parts) => {
          const split = splitEvenly(total, parts);
          assert.equal(split.length, parts);
          assert.equal(
            split.reduce((sum, part) => sum + part, 0),
            total,
          );
          assert.ok(split.every(Number.isSafeInteger));
          assert.ok(Math.max(...split) - Math.min(...split) <= 1);
          for (let i = 1; i < split.length; i++) assert.ok(split[i - 1]! >= split[i]!);
        },
      ),
    );
  });
});

describe('installmentAmounts', () => {
  test('the last instalment takes the remainder', () => {
    assert.deepEqual(installmentAmounts(1000, 300), [300, 300, 300, 100]);
    assert.deepEqual(installmentAmounts(900, 300), [300, 300, 300]);
    assert.deepEqual(installmentAmounts(100, 300), [100]);
    assert.deepEqual(installmentAmounts(1000, 300, 2), [300, 700]);
    assert.deepEqual(installmentAmounts(1000, 300, 1), [1000]);
    assert.deepEqual(installmentAmounts(901, 300, 4), [300, 300, 300, 1]);
  });

  test('null when the earlier instalments leave less than 1 for the last', () => {
    assert.equal(installmentAmounts(900, 300, 4), null);
    assert.equal(installmentAmounts(1000, 300, 5), null);
    assert.equal(installmentAmounts(1_000_000_000_000, 1_000_000_000_000, 1_000_000_000_000), null);
  });

  test('property: sums exactly, all but the last equal fixed, the last at least 1', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000_000_000 }),
        fc.integer({ min: 1, max: 1_000_000_000_000 }),
        fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
        (total, fixedOrLarger, count) => {
          // Keep most cases to a few hundred instalments.
          const fixed = Math.max(fixedOrLarger, Math.ceil(total / 400));
          const amounts = installmentAmounts(total, fixed, count);
          if (count !== undefined && total - fixed * (count - 1) < 1) {
            assert.equal(amounts, null);
            return;
          }
          assert.ok(amounts);
          assert.equal(amounts.length, count ?? Math.ceil(total / fixed));
          assert.equal(
            amounts.reduce((sum, amount) => sum + amount, 0),
            total,
          );
          assert.ok(amounts.slice(0, -1).every((amount) => amount === fixed));
          const last = amounts.at(-1)!;
          assert.ok(Number.isSafeInteger(last) && last >= 1);
          if (count === undefined) assert.ok(last <= fixed);
        },
      ),
    );
  });
});

describe('allocateOldestFirst', () => {
  test('fills debts in order and leaves the rest over', () => {
    assert.deepEqual(allocateOldestFirst(500, [200, 200, 200]), [200, 200, 100]);
    assert.deepEqual(allocateOldestFirst(1000, [200, 300]), [200, 300]);
    assert.deepEqual(allocateOldestFirst(0, [200, 300]), [0, 0]);
    assert.deepEqual(allocateOldestFirst(150, [0, 100, 100]), [0, 100, 50]);
    assert.deepEqual(allocateOldestFirst(150, [-50, 100, 100]), [0, 100, 50]);
    assert.deepEqual(allocateOldestFirst(150, []), []);
  });

  test('refuses a negative or fractional amount', () => {
    assert.throws(() => allocateOldestFirst(-1, [100]), RangeError);
    assert.throws(() => allocateOldestFirst(1.5, [100]), RangeError);
  });

  test('property: within each debt, sums to what can be paid, and only after earlier debts are paid', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000_000_000 }),
        fc.array(fc.integer({ min: 0, max: 100_000_000_000 }), { maxLength: 12 }),
        (amount, owed) => {
          const paid = allocateOldestFirst(amount, owed);
          assert.equal(paid.length, owed.length);
          const owedTotal = owed.reduce((sum, debt) => sum + debt, 0);
          assert.equal(
            paid.reduce((sum, part) => sum + part, 0),
            Math.min(amount, owedTotal),
          );
          paid.forEach((part, i) => {
            assert.ok(Number.isSafeInteger(part) && part >= 0 && part <= owed[i]!);
            if (part > 0) for (let j = 0; j < i; j++) assert.equal(paid[j], owed[j]);
          });
        },
      ),
    );
  });
});
