import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { canonicalJson } from '../../src/lib/canonical-json.js';

/** The same value with every object's keys in another order. */
function reordered(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item) => reordered(item, seed));
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  const rotated = keys.map((_, i) => keys[(i + seed) % keys.length] as string).reverse();
  return Object.fromEntries(
    rotated.map((key) => [key, reordered((value as Record<string, unknown>)[key], seed)]),
  );
}

describe('canonicalJson', () => {
  test('sorts keys at every depth and keeps arrays in order', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 0 }], c: null } }),
      '{"a":{"c":null,"d":[2,{"y":0,"z":1}]},"b":1}',
    );
  });

  test('keeps a key named __proto__ as a key', () => {
    assert.equal(canonicalJson(JSON.parse('{"__proto__":{"x":1},"a":2}')), '{"__proto__":{"x":1},"a":2}');
  });

  test('property: key order never changes the text, and the text reads back as the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(20), (value, seed) => {
        const text = canonicalJson(value);
        assert.equal(canonicalJson(reordered(value, seed)), text);
        assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  test('property: different values give different texts', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const same =
          JSON.stringify(JSON.parse(canonicalJson(a))) === JSON.stringify(JSON.parse(canonicalJson(b)));
        assert.equal(canonicalJson(a) === canonicalJson(b), same);
      }),
    );
  });
});
