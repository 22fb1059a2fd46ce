import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { inTransaction } from '../../src/db/unit-of-work.js';
import { ManualClock } from '../../src/lib/clock.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newTrack, newWorkspace } from '../helpers/factories.js';

// Every message a PostgreSQL connection of the app sends (one simple query, or one extended-protocol statement):
// each is one round trip. Patched before the app opens its pool, so its connections count through it.
const sent: string[] = [];
let counting = false;
const clientQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (counting)
    sent.push(typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string }).text));
  return (clientQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof clientQuery;

const NOW = '2028-01-20T12:00:00.000Z';
let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
  await t.ctx.db.schema
    .createTable('held_begin_probe')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .execute();
});
after(async () => {
  pg.Client.prototype.query = clientQuery;
  await t.close();
});

async function roundTripsOf(work: () => Promise<unknown>): Promise<string[]> {
  sent.length = 0;
  counting = true;
  try {
    await work();
  } finally {
    counting = false;
  }
  return [...sent];
}

test('a payment on a plan with a schedule: two round trips on PostgreSQL, each a prepared statement, and its parts land in the obligations', async () => {
  const { api } = await newWorkspace(t);
  const plan = await newTrack(api, { amount: 90_000 });
  const schedule = await api.post('/collection-schedules', {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'monthly',
    fixed_amount: 30_000,
    start_date: '2028-02-10T09:00:00Z',
  });
  assert.equal(schedule.status, 201, JSON.stringify(schedule.body));
  const pay = (amount: number) => api.post('/payments', { trackId: plan.id, amount, method: 'cash' });
  // The first payment prepares the statements on its connection; the next ones can run them by EXECUTE.
  for (let i = 0; i < 12; i++) assert.equal((await pay(100)).status, 201);

  const trips = await roundTripsOf(async () => assert.equal((await pay(2_000)).status, 201));
  if (t.ctx.dialect === 'postgres') {
    assert.equal(trips.length, 2, trips.map((text) => text.slice(0, 60)).join('\n'));
    assert.match(trips[0] as string, /^begin;\nexecute pt_/);
    // The last statement, prepared by the payments before, runs by EXECUTE with the commit, made early and flushed.
    assert.match(
      trips[1] as string,
      /^set local synchronous_commit = off;\nexecute pt_[0-9a-f]+\(.*\);\ncommit;\nselect pg_logical_emit_message\(true, 'paytrack\.flush', ''\)$/s,
    );
  } else assert.deepEqual(trips, []);

  const obligations = await t.ctx.db
    .selectFrom('obligations')
    .select(['amount_paid', 'status'])
    .where('schedule_id', '=', schedule.body.data.id)
    .orderBy('due_date')
    .execute();
  assert.deepEqual(
    obligations.map((o) => [o.amount_paid, o.status]),
    [
      [3_200, 'partially_paid'],
      [0, 'pending'],
      [0, 'pending'],
    ],
  );
});

test('payments at once on one plan with a schedule each read the obligations as the one before left them', async () => {
  const { api } = await newWorkspace(t);
  const plan = await newTrack(api, { amount: 96_000 });
  const schedule = await api.post('/collection-schedules', {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'monthly',
    fixed_amount: 8_000,
    start_date: '2028-02-10T09:00:00Z',
  });
  assert.equal(schedule.status, 201, JSON.stringify(schedule.body));
  // 24 payments of 3,000 at once over obligations of 8,000: most payments split across two of them, and each must
  // see the parts the payment before it on the plan wrote.
  const answers = await Promise.all(
    Array.from({ length: 24 }, () =>
      api.post('/payments', { trackId: plan.id, amount: 3_000, method: 'cash' }),
    ),
  );
  assert.deepEqual(
    answers.map((answer) => answer.status),
    answers.map(() => 201),
    JSON.stringify(answers.find((answer) => answer.status !== 201)?.body),
  );
  const obligations = await t.ctx.db
    .selectFrom('obligations')
    .select(['amount_paid', 'status', 'allocations'])
    .where('schedule_id', '=', schedule.body.data.id)
    .orderBy('due_date')
    .execute();
  assert.deepEqual(
    obligations.map((o) => [o.amount_paid, o.status]),
    obligations.map((_, i) => (i < 9 ? [8_000, 'paid'] : [0, 'pending'])),
  );
  const parts = obligations.flatMap((o) => JSON.parse(o.allocations) as { amount: number }[]);
  assert.equal(
    parts.reduce((sum, part) => sum + part.amount, 0),
    72_000,
  );
  const track = await api.get(`/tracks/${plan.id}`);
  assert.equal(track.body.data.balance, 24_000);
});

test('a unit of work whose first statement was prepared before: its begin goes with it, and a rollback undoes it', async () => {
  const insert = (db: Parameters<Parameters<typeof inTransaction>[2]>[0], id: string) =>
    db
      .insertInto('held_begin_probe' as never)
      .values({ id } as never)
      .execute();
  // Prepares the statement on the connections it meets, outside any unit.
  for (let i = 0; i < 16; i++) await insert(t.ctx.db as never, `outside-${i}`);
  for (let i = 0; i < 16; i++) {
    await assert.rejects(
      inTransaction(t.ctx, null, async (trx) => {
        await insert(trx, `undone-${i}`);
        throw new Error('stop');
      }),
      /stop/,
    );
  }
  const undone = await sql<{
    n: number;
  }>`select count(*) as n from held_begin_probe where id like 'undone-%'`.execute(t.ctx.db);
  assert.equal(Number(undone.rows[0]?.n), 0);
});

test('a unit of work whose first statement fails leaves nothing, and the connection serves the next unit', async () => {
  for (let i = 0; i < 16; i++) {
    await assert.rejects(
      inTransaction(t.ctx, null, async (trx) => {
        await trx
          .insertInto('held_begin_probe' as never)
          .values({ id: 'outside-0' } as never)
          .execute();
      }),
    );
    const kept = await inTransaction(t.ctx, null, async (trx) => {
      await trx
        .insertInto('held_begin_probe' as never)
        .values({ id: `kept-${i}` } as never)
        .execute();
      return 'done';
    });
    assert.equal(kept, 'done');
  }
  const empty = await inTransaction(t.ctx, null, async () => 'nothing written');
  assert.equal(empty, 'nothing written');
  const kept = await sql<{
    n: number;
  }>`select count(*) as n from held_begin_probe where id like 'kept-%'`.execute(t.ctx.db);
  assert.equal(Number(kept.rows[0]?.n), 16);
});
