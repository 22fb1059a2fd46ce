import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { type DatabaseHandle, openDatabase, sqlitePath } from '../../src/db/database.js';
import { inTransaction } from '../../src/db/unit-of-work.js';
import { WriteTurns } from '../../src/db/write-turns.js';

/** Long enough that a unit which ran before its turn can only have been let through by the turns themselves. */
const NEVER_MS = 60_000;

let dataDir: string;
let turns: WriteTurns;
let handle: DatabaseHandle;
before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paytrack-write-turns-'));
  turns = new WriteTurns(undefined, NEVER_MS);
  handle = openDatabase({ dataDir, databaseUrl: undefined, writeTurns: turns });
  await sql`create table units (id integer primary key)`.execute(handle.db);
});
after(async () => {
  await handle.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const ctx = () => ({ db: handle.db, dialect: 'sqlite' as const });

test('a group commit gives way while a connection of another thread waits for the write lock', async () => {
  const order: string[] = [];
  // Another thread's connection found the lock taken (it shares the counter through the buffer).
  const otherThread = new WriteTurns(turns.buffer);
  otherThread.waiting();
  const unit = inTransaction(ctx(), null, async (trx) => {
    order.push('unit');
    await sql`insert into units (id) values (1)`.execute(trx);
  });
  for (let i = 0; i < 20; i++) await nextTurn();
  order.push('other thread has the lock');
  otherThread.doneWaiting();
  await unit;
  assert.deepEqual(order, ['other thread has the lock', 'unit']);
  assert.equal(turns.waitingNow, 0);
});

test('a connection that finds the lock taken counts itself as waiting until it has the lock', async () => {
  const other = new BetterSqlite3(sqlitePath(dataDir));
  try {
    other.exec('begin immediate');
    const unit = inTransaction(ctx(), null, async (trx) => {
      await sql`insert into units (id) values (2)`.execute(trx);
    });
    while (turns.waitingNow === 0) await nextTurn();
    assert.equal(turns.waitingNow, 1);
    other.exec('commit');
    await unit;
    assert.equal(turns.waitingNow, 0);
  } finally {
    other.close();
  }
});

test('patient work that finds the lock taken waits for a gap without asking for a turn', async () => {
  const other = new BetterSqlite3(sqlitePath(dataDir));
  try {
    other.exec('begin immediate');
    let ran = false;
    const unit = inTransaction(
      ctx(),
      null,
      async (trx) => {
        ran = true;
        await sql`insert into units (id) values (4)`.execute(trx);
      },
      { patient: true },
    );
    for (let i = 0; i < 20; i++) await nextTurn();
    assert.equal(ran, false);
    assert.equal(turns.waitingNow, 0);
    other.exec('commit');
    await unit;
    assert.equal(ran, true);
  } finally {
    other.close();
  }
});

test('turns cleared after a thread ended while it waited no longer hold a group commit back', async () => {
  new WriteTurns(turns.buffer).waiting();
  turns.reset();
  await inTransaction(ctx(), null, async (trx) => {
    await sql`insert into units (id) values (3)`.execute(trx);
  });
  assert.equal(turns.waitingNow, 0);
});

test('a connection whose mark was cleared while it waited does not take the count below zero', async () => {
  const thisThread = new WriteTurns(turns.buffer);
  thisThread.waiting();
  // The other thread ended meanwhile, and the server cleared every mark.
  turns.reset();
  thisThread.doneWaiting();
  assert.equal(turns.waitingNow, 0);
  await inTransaction(ctx(), null, async (trx) => {
    await sql`insert into units (id) values (5)`.execute(trx);
  });
});
