import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { bucketsIn } from '../../src/modules/reports/reports.period.js';
import { slotCeiling, slotOf, slotStart, splitRange } from '../../src/modules/reports/rollups.slots.js';

const QUARTER = 15 * 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('report slots', () => {
  test('an instant falls in the quarter hour that starts at or before it', () => {
    assert.equal(slotOf('2028-02-10T22:59:59.999Z'), '2028-02-10T22:45');
    assert.equal(slotOf('2028-02-10T23:00:00.000Z'), '2028-02-10T23:00');
    assert.equal(slotStart('2028-02-10T23:15'), '2028-02-10T23:15:00.000Z');
    assert.equal(slotCeiling('2028-02-10T23:00:00.000Z'), '2028-02-10T23:00:00.000Z');
    assert.equal(slotCeiling('2028-02-10T23:00:00.001Z'), '2028-02-10T23:15:00.000Z');
  });

  test('a range is its whole quarter hours and its edges, each instant in exactly one part', () => {
    const instant = fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2026, 0, 3) });
    fc.assert(
      fc.property(fc.option(instant, { nil: null }), instant, instant, (from, end, probe) => {
        if (from !== null && from > end) return;
        const split = splitRange(from === null ? null : iso(from), iso(end));
        const inside = (r: { from?: string; to: string }) =>
          (r.from === undefined || iso(probe) >= r.from) && iso(probe) < r.to;
        const parts = [...(split.whole ? [split.whole] : []), ...split.edges].filter(inside).length;
        const expected = (from === null || probe >= from) && probe < end ? 1 : 0;
        assert.equal(parts, expected);
        if (split.whole) {
          assert.equal(Date.parse(split.whole.to) % QUARTER, 0);
          if (split.whole.from) assert.equal(Date.parse(split.whole.from) % QUARTER, 0);
        }
        // An edge is the part of a quarter hour at one end, or, without a whole quarter hour, parts of two.
        for (const edge of split.edges)
          assert.ok(Date.parse(edge.to) - Date.parse(edge.from ?? edge.to) < 2 * QUARTER);
      }),
      { numRuns: 3000 },
    );
  });

  test('quarter hours group into local days, Monday weeks and months', () => {
    const lagos = (groupBy: 'day' | 'week' | 'month') => bucketsIn('Africa/Lagos', groupBy);
    assert.equal(lagos('day')('2028-02-10T22:45'), '2028-02-10');
    assert.equal(lagos('day')('2028-02-10T23:00'), '2028-02-11');
    assert.equal(lagos('week')('2028-02-13T12:00'), '2028-02-07', 'Sunday is in the week of Monday 7 Feb');
    assert.equal(lagos('week')('2028-02-13T23:00'), '2028-02-14', 'Monday 00:00 in Lagos starts a week');
    assert.equal(lagos('month')('2028-02-29T23:30'), '2028-03-01');
    assert.equal(bucketsIn('Asia/Kathmandu', 'day')('2028-02-10T18:15'), '2028-02-11', '+05:45');
    assert.equal(bucketsIn('Asia/Kathmandu', 'day')('2028-02-10T18:00'), '2028-02-10');
  });
});
