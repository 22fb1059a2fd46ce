import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { tenantClock } from '../../src/clock/tenant-clocks.js';
import { ManualClock, offsetClock } from '../../src/lib/clock.js';

describe('clocks', () => {
  test('a manual clock stands still until moved', () => {
    const clock = new ManualClock(new Date('2026-01-31T10:00:00.000Z'));
    assert.equal(clock.now().toISOString(), '2026-01-31T10:00:00.000Z');
    assert.equal(clock.now().toISOString(), '2026-01-31T10:00:00.000Z');
    clock.advance(1_500);
    assert.equal(clock.now().toISOString(), '2026-01-31T10:00:01.500Z');
    clock.set(new Date('2027-01-01T00:00:00.000Z'));
    assert.equal(clock.now().toISOString(), '2027-01-01T00:00:00.000Z');
  });

  test('a tenant clock is the base in live mode and the base plus the offset in test mode', () => {
    const base = new ManualClock(new Date('2026-01-31T10:00:00.000Z'));
    assert.equal(tenantClock(base, 'live', 86_400_000), base);
    assert.equal(tenantClock(base, 'test', 0), base);
    const test = tenantClock(base, 'test', 86_400_000);
    assert.equal(test.now().toISOString(), '2026-02-01T10:00:00.000Z');
    base.advance(60_000);
    assert.equal(test.now().toISOString(), '2026-02-01T10:01:00.000Z', 'it runs at the speed of its base');
    assert.equal(offsetClock(base, 0), base);
  });
});
