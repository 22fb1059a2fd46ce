import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/db/database.js';
import { inlineParameters } from '../../src/db/inline-parameters.js';
import { inTransaction, leaveForCommit } from '../../src/db/unit-of-work.js';
import { freshDatabase, type TestDatabase } from '../helpers/app.js';

let database: TestDatabase;
let handle: DatabaseHandle;
before(async () => {
  database = await freshDatabase();
  handle = database.open();
  await sql`create table marks (id text primary key, body text)`.execute(handle.db);
  await sql`create table counters (id text primary key, n integer not null)`.execute(handle.db);
  await sql`insert into counters values ('c', 0)`.execute(handle.db);
});
after(async () => {
  await handle.close();
  await database.drop();
});

const ctx = () => ({ db: handle.db, dialect: handle.dialect });
const marks = async () =>
  (await sql<{ id: string; body: string }>`select id, body from marks order by id`.execute(handle.db)).rows;

test('parameters written in as literals: quotes, backslashes and placeholders inside literals stay as they are', () => {
  assert.equal(
    inlineParameters(`select $1, '$2', "a$1", $2, $3, $10`, [
      "it's",
      'C:\\path',
      null,
      4,
      5,
      6,
      7,
      8,
      9,
      12.5,
    ]),
    `select 'it''s', '$2', "a$1",  E'C:\\\\path', null, '12.5'`,
  );
  assert.throws(() => inlineParameters('select $2', ['one']), /no parameter \$2/);
  assert.throws(() => inlineParameters('select $1', [Number.NaN]), /not a finite number/);
  assert.throws(() => inlineParameters('select $1', [new Date()]), /cannot be inlined/);
  assert.throws(() => inlineParameters('select $1', ['a\u0000b']), /NUL/);
});

test('a final statement left for the commit runs after the rest of the unit, and its row settles the result', async () => {
  const body = `it's a \\ mark`;
  const result = await inTransaction(ctx(), null, async (trx) => {
    await sql`insert into marks values (${'a1'}, ${'before'})`.execute(trx);
    const answer = { body: 'token' };
    const statement = {
      query: trx
        .insertInto('marks' as never)
        .values({ id: 'a2', body } as never)
        .returning('body' as never),
      token: 'token',
      settle: (row: unknown) => {
        answer.body = (row as { body: string }).body;
      },
    };
    if (!leaveForCommit(trx, statement)) statement.settle(await statement.query.executeTakeFirstOrThrow());
    return answer;
  });
  assert.deepEqual(result, { body });
  assert.deepEqual(await marks(), [
    { id: 'a1', body: 'before' },
    { id: 'a2', body },
  ]);
  // The connection that carried the commit takes the next transactions as usual.
  await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      inTransaction(ctx(), null, (trx) => sql`insert into marks values (${`b${i}`}, ${'next'})`.execute(trx)),
    ),
  );
  assert.equal((await marks()).length, 14);
});

test('a final statement that fails undoes the whole unit, and nothing after it in its round trip runs', async () => {
  await assert.rejects(
    inTransaction(ctx(), null, async (trx) => {
      await sql`insert into marks values (${'c1'}, ${'undone'})`.execute(trx);
      const statement = {
        // The same id twice: the second insert fails on the primary key.
        query: trx.insertInto('marks' as never).values({ id: 'c1', body: 'again' } as never),
        token: 'token',
        settle: () => {},
      };
      if (!leaveForCommit(trx, statement)) await statement.query.execute();
      return null;
    }),
  );
  assert.equal((await marks()).filter((row) => row.id.startsWith('c')).length, 0);
  await inTransaction(ctx(), null, (trx) => sql`insert into marks values (${'c2'}, ${'after'})`.execute(trx));
  assert.deepEqual(
    (await marks()).filter((row) => row.id.startsWith('c')),
    [{ id: 'c2', body: 'after' }],
  );
});

test('only the unit opened by inTransaction takes a final statement, and only one', async () => {
  const taken = await handle.db
    .transaction()
    .execute(async (trx) =>
      leaveForCommit(trx, { query: trx.selectNoFrom(sql`1`.as('one')), token: 't', settle: () => {} }),
    );
  assert.equal(taken, false);
  const second = await inTransaction(ctx(), null, async (trx) => {
    const statement = { query: trx.selectNoFrom(sql`1`.as('one')), token: 't', settle: () => {} };
    const first = leaveForCommit(trx, statement);
    return { first, second: leaveForCommit(trx, statement) };
  });
  assert.deepEqual(second, { first: handle.dialect === 'postgres', second: false });
});

/** A unit whose final statement raises the counter and answers its new value, as a payment takes its receipt number. */
function takeNumber(lsn: ReturnType<typeof sql> = sql`null`) {
  return inTransaction(ctx(), null, async (trx) => {
    const answer = { n: 0, lsn: null as string | null };
    const query = sql`update counters set n = n + 1 where id = ${'c'} returning n, ${lsn} as lsn`.compile(
      trx,
    );
    const statement = {
      query: { compile: () => query },
      token: 'token',
      settle: (row: unknown) => Object.assign(answer, row),
    };
    if (!leaveForCommit(trx, statement)) statement.settle((await trx.executeQuery(query)).rows[0]);
    return answer;
  });
}

test('units at once that each take a number in their final statement take every number once, without gaps', async () => {
  const start = (await sql<{ n: number }>`select n from counters`.execute(handle.db)).rows[0]?.n ?? 0;
  const numbers = (await Promise.all(Array.from({ length: 40 }, () => takeNumber()))).map(({ n }) =>
    Number(n),
  );
  assert.deepEqual(
    numbers.sort((a, b) => a - b),
    Array.from({ length: 40 }, (_, i) => start + i + 1),
  );
});

test('a final statement carried with the commit answers only once its commit is on disk', async () => {
  if (handle.dialect !== 'postgres') {
    // SQLite carries nothing: the unit commits itself, and a commit returns once it is synced.
    const mode = await sql<{ synchronous: number }>`pragma synchronous`.execute(handle.db);
    assert.equal(mode.rows[0]?.synchronous, 2, 'synchronous=FULL');
    return;
  }
  for (let i = 0; i < 5; i++) {
    // Where the log ended while the statement ran: its commit comes after it, so a flush that covers the commit
    // is past it. Without the flush the log would reach the disk only on PostgreSQL's own time (up to 200 ms).
    const { lsn } = await takeNumber(sql`pg_current_wal_insert_lsn()::text`);
    const flushed = await sql<{
      past: boolean;
    }>`select pg_current_wal_flush_lsn() > ${lsn}::pg_lsn as past`.execute(handle.db);
    assert.equal(flushed.rows[0]?.past, true, `flush not past ${lsn}`);
  }
});
