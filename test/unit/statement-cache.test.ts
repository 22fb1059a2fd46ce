import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { withStatementCache } from '../../src/db/statement-cache.js';

function database() {
  const sqlite = new BetterSqlite3(':memory:');
  sqlite.exec("create table t (id integer primary key, name text); insert into t values (1, 'a'), (2, 'b')");
  return { sqlite, cached: withStatementCache(sqlite) };
}

describe('the SQLite statement cache', () => {
  test('prepares a text once and hands the same statement back', () => {
    const { sqlite, cached } = database();
    const first = cached.prepare('select name from t where id = ?');
    assert.equal(cached.prepare('select name from t where id = ?'), first);
    assert.deepEqual(first.all([2]), [{ name: 'b' }]);
    sqlite.close();
  });

  test('a statement still being iterated is not handed out again: the same text gets a fresh one', () => {
    const { sqlite, cached } = database();
    const streaming = cached.prepare('select id from t order by id');
    const rows = streaming.iterate([]);
    assert.deepEqual(rows.next().value, { id: 1 });
    assert.notEqual(cached.prepare('select id from t order by id'), streaming);
    assert.deepEqual(rows.next().value, { id: 2 });
    assert.equal(rows.next().done, true);
    assert.equal(cached.prepare('select id from t order by id'), streaming);
    sqlite.close();
  });

  test('a cached statement sees a column added after it was prepared', () => {
    const { sqlite, cached } = database();
    assert.deepEqual(cached.prepare('select * from t where id = ?').all([1]), [{ id: 1, name: 'a' }]);
    sqlite.exec('alter table t add column note text');
    assert.deepEqual(cached.prepare('select * from t where id = ?').all([1]), [
      { id: 1, name: 'a', note: null },
    ]);
    sqlite.close();
  });

  test('past 500 texts the least recently used half goes; a text used since stays prepared', () => {
    const { sqlite, cached } = database();
    const text = (i: number) => `select ${i} as n`;
    const prepared = Array.from({ length: 500 }, (_, i) => cached.prepare(text(i)));
    // Text 0 and text 400 are used again, so texts 1 to 250 are the least recently used half when text 500 comes.
    assert.equal(cached.prepare(text(0)), prepared[0]);
    assert.equal(cached.prepare(text(400)), prepared[400]);
    cached.prepare(text(500));
    assert.equal(cached.prepare(text(0)), prepared[0]);
    assert.equal(cached.prepare(text(400)), prepared[400]);
    assert.equal(cached.prepare(text(251)), prepared[251]);
    assert.notEqual(cached.prepare(text(1)), prepared[1]);
    assert.notEqual(cached.prepare(text(250)), prepared[250]);
    assert.deepEqual(cached.prepare(text(500)).all([]), [{ n: 500 }]);
    sqlite.close();
  });
});
