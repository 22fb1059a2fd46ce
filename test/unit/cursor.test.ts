import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../src/lib/app-error.js';
import { decodeCursor, encodeCursor, toPage } from '../../src/lib/cursor.js';
import { newId } from '../../src/lib/ids.js';

function assertBadCursor(cursor: string) {
  assert.throws(
    () => decodeCursor(cursor, 'customer'),
    (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'validation_error');
      assert.deepEqual(Object.keys((error.details as { fields: object }).fields), ['cursor']);
      return true;
    },
    cursor,
  );
}

describe('cursor', () => {
  test('round trips an id and is opaque URL-safe text', () => {
    const id = newId('customer', new Date());
    const cursor = encodeCursor(id);
    assert.match(cursor, /^[A-Za-z0-9_-]+$/);
    assert.ok(!cursor.includes(id));
    assert.equal(decodeCursor(cursor, 'customer'), id);
  });

  test('garbage is a validation_error naming the cursor field', () => {
    assertBadCursor('garbage');
    assertBadCursor('!!!');
    assertBadCursor('');
    assertBadCursor(Buffer.from('{"v":2,"id":"cus_1"}').toString('base64url'));
    assertBadCursor(Buffer.from('{"v":1,"id":42}').toString('base64url'));
    assertBadCursor(Buffer.from('null').toString('base64url'));
    assertBadCursor(Buffer.from('[1]').toString('base64url'));
  });

  test('a cursor of another kind of list is refused', () => {
    assertBadCursor(encodeCursor(newId('track', new Date())));
  });
});

describe('toPage', () => {
  const rows = ['c', 'b', 'a'].map((id) => ({ id, n: id.charCodeAt(0) }));

  test('with more rows than the limit: has_more and a cursor of the last item shown', () => {
    const page = toPage(rows, 2, (r) => r.n);
    assert.deepEqual(page.items, [99, 98]);
    assert.equal(page.has_more, true);
    assert.equal(page.next_cursor, encodeCursor('b'));
  });

  test('with the last page: no more and no cursor', () => {
    assert.deepEqual(
      toPage(rows, 3, (r) => r.id),
      { items: ['c', 'b', 'a'], has_more: false, next_cursor: null },
    );
    assert.deepEqual(
      toPage([], 20, (r) => r),
      { items: [], has_more: false, next_cursor: null },
    );
  });
});
