import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import { KEY_FRESH_MS, KeyCache } from '../../src/modules/api-keys/key-cache.js';

const row = (workspace_id: string) => ({ workspace_id });

describe('KeyCache', () => {
  test('answers from what it read for less than a second of its clock, then reads again', async () => {
    assert.ok(KEY_FRESH_MS < 1_000);
    const clock = new ManualClock(new Date('2030-01-01T00:00:00.000Z'));
    const cache = new KeyCache<{ workspace_id: string }>(clock);
    let reads = 0;
    const read = async () => {
      reads += 1;
      return row('ws_a');
    };
    await cache.read('h', read);
    clock.advance(KEY_FRESH_MS - 1);
    await cache.read('h', read);
    assert.equal(reads, 1);
    clock.advance(1);
    await cache.read('h', read);
    assert.equal(reads, 2);
  });

  test('keeps nothing it did not find, and nothing read while its workspace was forgotten', async () => {
    const cache = new KeyCache<{ workspace_id: string }>(new ManualClock());
    let reads = 0;
    assert.equal(
      await cache.read('gone', async () => {
        reads += 1;
        return undefined;
      }),
      undefined,
    );
    await cache.read('gone', async () => {
      reads += 1;
      return undefined;
    });
    assert.equal(reads, 2);

    const stale = cache.read('h', async () => {
      cache.forgetWorkspace('ws_a');
      return row('ws_a');
    });
    await stale;
    let fresh = 0;
    await cache.read('h', async () => {
      fresh += 1;
      return row('ws_a');
    });
    assert.equal(fresh, 1, 'the read that raced the change was not kept');
  });

  test('forgetting a workspace drops its keys only; a clock moved back reads again', async () => {
    const clock = new ManualClock();
    const cache = new KeyCache<{ workspace_id: string }>(clock);
    await cache.read('a', async () => row('ws_a'));
    await cache.read('b', async () => row('ws_b'));
    cache.forgetWorkspace('ws_a');
    assert.equal(cache.get('a'), undefined);
    assert.ok(cache.get('b'));
    clock.advance(-1);
    assert.equal(cache.get('b'), undefined);
  });
});
