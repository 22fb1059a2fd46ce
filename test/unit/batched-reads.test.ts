import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { batchedById, paddedIds } from '../../src/db/batched-reads.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.js';
import type { DbOrTrx } from '../../src/db/schema.js';
import type { TenantRef } from '../../src/lib/tenant.js';

interface Item {
  id: string;
  workspace_id: string;
  mode: string;
  name: string;
}

let dataDir: string;
let handle: DatabaseHandle;
before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paytrack-batched-reads-'));
  handle = openDatabase({ dataDir, databaseUrl: undefined });
  await sql`create table items (id text primary key, workspace_id text not null, mode text not null, name text not null)`.execute(
    handle.db,
  );
  await sql`insert into items values
    ('a1', 'wsA', 'test', 'first of A'), ('a2', 'wsA', 'test', 'second of A'),
    ('b1', 'wsB', 'test', 'first of B'), ('l1', 'wsA', 'live', 'live of A')`.execute(handle.db);
});
after(async () => {
  await handle.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const A: TenantRef = { workspaceId: 'wsA', mode: 'test' };
const B: TenantRef = { workspaceId: 'wsB', mode: 'test' };
const A_LIVE: TenantRef = { workspaceId: 'wsA', mode: 'live' };

/** A find-by-id on `items` that records the ids of each statement it runs. */
function countedFind(fail?: () => boolean) {
  const statements: string[][] = [];
  const find = batchedById<Item>(async (db: DbOrTrx, tenant, ids) => {
    statements.push([...ids]);
    if (fail?.()) throw new Error('the database went away');
    const result = await sql<Item>`select * from items
      where id in (${sql.join(ids)}) and workspace_id = ${tenant.workspaceId} and mode = ${tenant.mode}`.execute(
      db,
    );
    return result.rows;
  });
  return { find, statements };
}

/** Starts each read in its own callback of one turn of the event loop, as requests that arrive together. */
function together<T>(reads: (() => Promise<T>)[]): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const started: Promise<T>[] = [];
    for (const read of reads) setImmediate(() => started.push(read()));
    setImmediate(() => Promise.all(started).then(resolve, reject));
  });
}

test('reads that arrive together share one statement per tenant, and each gets its own row', async () => {
  const { find, statements } = countedFind();
  const rows = await together([
    () => find(handle.db, A, 'a1'),
    () => find(handle.db, A, 'a2'),
    () => find(handle.db, A, 'a1'),
    () => find(handle.db, A, 'missing'),
    () => find(handle.db, B, 'b1'),
    () => find(handle.db, B, 'a1'),
    () => find(handle.db, A_LIVE, 'a1'),
    () => find(handle.db, A_LIVE, 'l1'),
  ]);
  assert.deepEqual(
    rows.map((row) => row?.name),
    ['first of A', 'second of A', 'first of A', undefined, 'first of B', undefined, undefined, 'live of A'],
  );
  // Two reads of one row get two objects.
  assert.notEqual(rows[0], rows[2]);
  assert.equal(statements.length, 3);
  assert.deepEqual(
    statements.map((ids) => ids.slice(0, new Set(ids).size)),
    [
      ['a1', 'a2', 'missing'],
      ['b1', 'a1'],
      ['a1', 'l1'],
    ],
  );
});

test('a failed statement fails every read gathered into it, and the next reads run anew', async () => {
  let failing = true;
  const { find, statements } = countedFind(() => failing);
  const outcomes = await together(
    [() => find(handle.db, A, 'a1'), () => find(handle.db, A, 'a2')].map(
      (read) => () =>
        read().then(
          () => 'found',
          (error: Error) => error.message,
        ),
    ),
  );
  assert.deepEqual(outcomes, ['the database went away', 'the database went away']);
  failing = false;
  assert.equal((await find(handle.db, A, 'a2'))?.name, 'second of A');
  assert.equal(statements.length, 2);
});

test('in a transaction a read runs at once and sees what the transaction wrote', async () => {
  const { find, statements } = countedFind();
  const name = await handle.db.transaction().execute(async (trx) => {
    await sql`insert into items values ('a3', 'wsA', 'test', 'written in the transaction')`.execute(trx);
    const row = await find(trx, A, 'a3');
    await sql`delete from items where id = 'a3'`.execute(trx);
    return row?.name;
  });
  assert.equal(name, 'written in the transaction');
  assert.deepEqual(statements, [['a3']]);
});

test('a statement asks for a power of two of ids: the ids given, then the last one again', () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 64 }), (ids) => {
      const padded = paddedIds(ids);
      assert.equal(padded.length & (padded.length - 1), 0);
      assert.ok(padded.length < 2 * ids.length);
      assert.deepEqual(padded.slice(0, ids.length), ids);
      for (const id of padded.slice(ids.length)) assert.equal(id, ids[ids.length - 1]);
    }),
  );
});
