import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/db/database.js';
import { freshDatabase, type TestDatabase } from '../helpers/app.js';

let database: TestDatabase;
let handle: DatabaseHandle;
before(async () => {
  database = await freshDatabase();
  handle = database.open();
  await sql`create table notes (id integer primary key, body text)`.execute(handle.db);
  await sql`insert into notes values (1, 'first')`.execute(handle.db);
});
after(async () => {
  await handle.close();
  await database.drop();
});

const read = () => sql<Record<string, unknown>>`select * from notes where id = ${1}`.execute(handle.db);

test('a statement prepared before a migration changed its table keeps answering: outside a transaction it is run again', async () => {
  // Every connection of the pool has the statement prepared.
  await Promise.all(Array.from({ length: 12 }, () => read()));
  await sql`alter table notes add column author text`.execute(handle.db);
  const answers = await Promise.all(Array.from({ length: 24 }, () => read()));
  for (const { rows } of answers) assert.deepEqual(rows, [{ id: 1, body: 'first', author: null }]);
});

test('in a transaction, such a statement fails at most once per connection, and the retried transaction runs', async () => {
  await Promise.all(
    Array.from({ length: 12 }, () => sql`select * from notes where body = ${'first'}`.execute(handle.db)),
  );
  await sql`alter table notes add column tag text`.execute(handle.db);
  let failed = 0;
  for (let i = 0; i < 20; i++) {
    try {
      const rows = await handle.db
        .transaction()
        .execute(async (trx) => (await sql`select * from notes where body = ${'first'}`.execute(trx)).rows);
      assert.deepEqual(rows, [{ id: 1, body: 'first', author: null, tag: null }]);
    } catch (error) {
      assert.equal(handle.dialect, 'postgres', String(error));
      assert.equal((error as { code?: string }).code, '0A000');
      failed++;
    }
  }
  assert.ok(failed <= 12, `${failed} failed`);
});
