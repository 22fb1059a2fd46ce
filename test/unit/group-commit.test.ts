import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { type DatabaseHandle, openDatabase, sqlitePath } from '../../src/db/database.js';
import { inTransaction } from '../../src/db/unit-of-work.js';

let dataDir: string;
let handle: DatabaseHandle;
let reader: BetterSqlite3.Database;
before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paytrack-group-commit-'));
  handle = openDatabase({ dataDir, databaseUrl: undefined });
  await sql`create table units (id integer primary key)`.execute(handle.db);
  reader = new BetterSqlite3(sqlitePath(dataDir), { readonly: true });
});
after(async () => {
  reader.close();
  await handle.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const committed = () => (reader.prepare('select count(*) as n from units').get() as { n: number }).n;

test('units of work started by separate callbacks of one turn of the event loop share one commit', async () => {
  const seenCommitted: number[] = [];
  // Requests arrive as separate I/O callbacks; callbacks of one phase of the loop stand in for them here.
  const results = await new Promise<number[]>((resolve, reject) => {
    const units: Promise<number>[] = [];
    for (let i = 1; i <= 6; i++) {
      setImmediate(() => {
        units.push(
          inTransaction({ db: handle.db, dialect: 'sqlite' }, null, async (trx) => {
            seenCommitted.push(committed());
            await sql`insert into units (id) values (${i})`.execute(trx);
            return i;
          }),
        );
      });
    }
    setImmediate(() => Promise.all(units).then(resolve, reject));
  });
  assert.deepEqual(results, [1, 2, 3, 4, 5, 6]);
  // Each unit ran before any of them was committed: one commit made all six durable.
  assert.deepEqual(seenCommitted, Array(6).fill(0));
  assert.equal(committed(), 6);
});

test("each unit of a group runs in its caller's async context, not in the group's", async () => {
  const caller = new AsyncLocalStorage<number>();
  const seen = await new Promise<(number | undefined)[]>((resolve, reject) => {
    const units: Promise<number | undefined>[] = [];
    for (let i = 1; i <= 4; i++) {
      setImmediate(() =>
        caller.run(i, () => {
          units.push(
            inTransaction({ db: handle.db, dialect: 'sqlite' }, null, async (trx) => {
              await sql`insert into units (id) values (${100 + i})`.execute(trx);
              return caller.getStore();
            }),
          );
        }),
      );
    }
    setImmediate(() => Promise.all(units).then(resolve, reject));
  });
  assert.deepEqual(seen, [1, 2, 3, 4]);
});
