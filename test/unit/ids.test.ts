import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hasPrefix, ID_PREFIXES, type IdKind, newId, ulid } from '../../src/lib/ids.js';

const BODY = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function decodeTime(body: string): number {
  return [...body.slice(0, 10)].reduce((ms, c) => ms * 32 + ALPHABET.indexOf(c), 0);
}

describe('newId', () => {
  test('has the prefix of its kind and a 26-character Crockford base32 body', () => {
    for (const kind of Object.keys(ID_PREFIXES) as IdKind[]) {
      const id = newId(kind, new Date());
      const [prefix, body, ...rest] = id.split('_');
      assert.equal(prefix, ID_PREFIXES[kind]);
      assert.match(body ?? '', BODY);
      assert.equal(rest.length, 0);
      assert.equal(hasPrefix(kind, id), true);
    }
    assert.match(newId('customer', new Date()), /^cus_/);
    assert.match(newId('track', new Date()), /^trk_/);
    assert.match(newId('payment', new Date()), /^pay_/);
    assert.match(newId('ledgerEntry', new Date()), /^led_/);
    assert.equal(hasPrefix('customer', newId('track', new Date())), false);
  });

  test('sorts in creation order', () => {
    const ids = Array.from({ length: 2000 }, () => newId('payment', new Date()));
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, ids.length);
  });
});

describe('ulid', () => {
  // Far in the future, so the process-wide "last time" of earlier ids never wins.
  const t0 = Date.UTC(2200, 0, 1);

  test('encodes the millisecond in its first 10 characters', () => {
    const id = ulid(t0);
    assert.match(id, BODY);
    assert.equal(decodeTime(id), t0);
  });

  test('is monotonic within the same millisecond', () => {
    const ids = Array.from({ length: 1000 }, () => ulid(t0 + 1));
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) assert.equal(decodeTime(id), t0 + 1);
  });

  test('takes its time from the clock it is given, earlier or later', () => {
    const a = ulid(t0 + 2);
    const b = ulid(t0 + 3);
    const c = ulid(t0 - 60_000);
    assert.ok(a < b);
    assert.ok(c < a);
    assert.equal(decodeTime(c), t0 - 60_000);
  });

  test('ids of one millisecond stay in creation order while ids of other times are made in between', () => {
    // A test clock moved ahead and live time make ids in turns; each millisecond keeps its own order.
    const same: string[] = [];
    for (let i = 0; i < 500; i++) {
      same.push(ulid(t0 + 10));
      ulid(t0 + 10 + 86_400_000 * ((i % 7) + 1));
    }
    assert.deepEqual([...same].sort(), same);
    assert.equal(new Set(same).size, same.length);
  });
});
