import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inTransaction } from '../../src/db/unit-of-work.js';
import { enqueue } from '../../src/jobs/queue.js';
import { sweepJob } from '../../src/jobs/sweeps.js';
import { ManualClock } from '../../src/lib/clock.js';
import { finishAdvanceJob } from '../../src/modules/test-clock/test-clock.job.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { approvedMandate, newSchedule } from '../helpers/collections.js';
import { newCustomer, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

/** Real time of every test here; the workspaces are in Lagos (UTC+1), so their days begin at 23:00 UTC. */
const NOW = '2027-12-20T12:00:00.000Z';
const DAY_MS = 86_400_000;

/** The first instant of a Lagos calendar date. */
const lagosDay = (date: string) => new Date(Date.parse(`${date}T00:00:00.000Z`) - 3_600_000).toISOString();
/** 08:00 in Lagos on a date: when quiet hours end. */
const lagosEight = (date: string) => new Date(Date.parse(`${date}T07:00:00.000Z`)).toISOString();

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const lagos = (app: TestApp = t) => newWorkspace(app, { timezone: 'Africa/Lagos' });

/** A plan of three monthly instalments of `fixedAmount`, due 26 Dec 2027, 26 Jan and 26 Feb 2028. */
async function monthly(
  api: Client,
  fixedAmount: number,
  method: string,
  customer: Record<string, unknown> = {},
) {
  const payer = await newCustomer(api, customer);
  const plan = await newTrack(api, { customerId: payer.id, amount: 3 * fixedAmount, title: 'Freezer' });
  const schedule = await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'monthly',
    fixed_amount: fixedAmount,
    start_date: '2027-12-26T09:00:00Z',
    end_date: '2028-02-26T09:00:00Z',
    collection_method: method,
  });
  return { payer, plan, schedule };
}

async function advance(api: Client, body: Record<string, unknown>, status = 200) {
  const res = await api.post('/account/test-clock/advance', body);
  assert.equal(res.status, status, JSON.stringify(res.body));
  return res.body.data as { now: string; status: string; ran: Record<string, number> };
}

async function listOf(api: Client, path: string) {
  const res = await api.get(path);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return [...res.body.data.items].reverse() as Record<string, any>[];
}

const attemptsOf = (api: Client, scheduleId: string) =>
  listOf(api, `/collection-attempts?schedule_id=${scheduleId}&limit=100`);
const obligationsOf = (api: Client, scheduleId: string) =>
  listOf(api, `/collection-schedules/${scheduleId}/obligations?limit=100`).then((items) =>
    items.sort((a, b) => (a.due_date < b.due_date ? -1 : 1)),
  );

/**
 * The events of a type a workspace's test mode recorded, oldest first, read from the outbox: the API lists only
 * the last 30 days, and these advances go further.
 */
async function eventsOf(app: TestApp, workspaceId: string, type: string) {
  const rows = await app.ctx.db
    .selectFrom('events')
    .select(['data', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .where('mode', '=', 'test')
    .where('type', '=', type)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ object: JSON.parse(row.data), createdAt: row.created_at }));
}

describe('an advance steps through time in order', () => {
  test('an auto-debit falling due on the way is charged at its own instant, in the same advance', async () => {
    const { api } = await lagos();
    const { plan, schedule } = await monthly(api, 100_000, 'auto_debit');
    await approvedMandate(t, api, schedule.id);

    const moved = await advance(api, { to: '2027-12-26T10:00:00Z' });
    assert.equal(moved.status, 'ready');
    assert.equal(moved.ran['attempts.create'], 1);
    assert.equal(moved.ran['attempts.run'], 1, JSON.stringify(moved.ran));

    const due = lagosDay('2027-12-26');
    const [attempt, ...more] = await attemptsOf(api, schedule.id);
    assert.equal(more.length, 0);
    assert.equal(attempt?.status, 'succeeded');
    assert.equal(attempt?.scheduled_for, due);
    assert.equal(attempt?.attempted_at, due);
    assert.equal(attempt?.created_at, due);
    const payment = (await api.get(`/payments/${attempt?.payment_id}`)).body.data;
    assert.equal(payment.paidAt, due);
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 200_000);
    const [first, second] = await obligationsOf(api, schedule.id);
    assert.equal(first?.status, 'paid');
    assert.equal(first?.paid_at, due);
    assert.equal(second?.status, 'pending');
  });

  test('a 40-day jump charges each monthly instalment on its due date: none is ever overdue', async () => {
    const { api, workspaceId } = await lagos();
    const { plan, schedule } = await monthly(api, 100_000, 'auto_debit');
    await approvedMandate(t, api, schedule.id);

    const moved = await advance(api, { days: 40 });
    assert.equal(moved.now, new Date(Date.parse(NOW) + 40 * DAY_MS).toISOString());
    const attempts = await attemptsOf(api, schedule.id);
    assert.deepEqual(
      attempts.map((a) => [a.status, a.attempted_at]),
      [
        ['succeeded', lagosDay('2027-12-26')],
        ['succeeded', lagosDay('2028-01-26')],
      ],
    );
    assert.deepEqual(
      (await obligationsOf(api, schedule.id)).map((o) => [o.due_date, o.status, o.paid_at]),
      [
        ['2027-12-26', 'paid', lagosDay('2027-12-26')],
        ['2028-01-26', 'paid', lagosDay('2028-01-26')],
        ['2028-02-26', 'pending', null],
      ],
    );
    assert.deepEqual(await eventsOf(t, workspaceId, 'obligation.overdue'), []);
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 100_000);
  });

  test('an unpaid obligation turns overdue when its due day is over, not before, with its event at that instant', async () => {
    const { api, workspaceId } = await lagos();
    const { schedule } = await monthly(api, 100_000, 'manual');

    await advance(api, { to: lagosDay('2027-12-27') });
    // The step at 00:00 on the 27th is the advance's target: the 26th is over.
    assert.deepEqual(
      (await obligationsOf(api, schedule.id)).map((o) => o.status),
      ['overdue', 'pending', 'pending'],
    );
    const { api: other } = await lagos();
    const late = await monthly(other, 100_000, 'manual');
    await advance(other, { to: new Date(Date.parse(lagosDay('2027-12-27')) - 1).toISOString() });
    assert.deepEqual(
      (await obligationsOf(other, late.schedule.id)).map((o) => o.status),
      ['pending', 'pending', 'pending'],
      'one millisecond before, the 26th is still the due day',
    );

    await advance(api, { days: 40 });
    const overdue = await eventsOf(t, workspaceId, 'obligation.overdue');
    assert.deepEqual(
      overdue.map((e) => [e.object.due_date, e.createdAt]),
      [
        ['2027-12-26', lagosDay('2027-12-27')],
        ['2028-01-26', lagosDay('2028-01-27')],
      ],
    );
    assert.deepEqual(
      (await obligationsOf(api, schedule.id)).map((o) => [
        o.status,
        o.status === 'overdue' ? o.updated_at : null,
      ]),
      [
        ['overdue', lagosDay('2027-12-27')],
        ['overdue', lagosDay('2028-01-27')],
        ['pending', null],
      ],
    );
  });

  test('automatic reminders: each stage made at the start of its day and sent at 08:00, none passed over', async () => {
    const { api } = await lagos();
    const { schedule } = await monthly(api, 100_000, 'reminder_only', { email: 'ada@example.com' });
    const [first] = await obligationsOf(api, schedule.id);

    const moved = await advance(api, { to: '2028-01-03T12:00:00Z' });
    assert.equal(moved.ran['reminders.schedule'], 4);
    assert.equal(moved.ran['reminders.send'], 4);
    const mine = (await listOf(api, '/reminders?limit=100')).filter((r) => r.obligationId === first?.id);
    assert.deepEqual(
      mine.map((r) => [r.stage, r.status, r.createdAt, r.sendAt, r.sentAt]),
      [
        ['3_days_before', 'sent', lagosDay('2027-12-23'), lagosEight('2027-12-23'), lagosEight('2027-12-23')],
        ['due_day', 'sent', lagosDay('2027-12-26'), lagosEight('2027-12-26'), lagosEight('2027-12-26')],
        ['3_days_after', 'sent', lagosDay('2027-12-29'), lagosEight('2027-12-29'), lagosEight('2027-12-29')],
        ['7_days_after', 'sent', lagosDay('2028-01-02'), lagosEight('2028-01-02'), lagosEight('2028-01-02')],
      ],
    );
  });

  test('a stage whose day has begun in quiet hours waits for 08:00: an advance to 07:59 leaves it queued', async () => {
    const { api } = await lagos();
    const { schedule } = await monthly(api, 100_000, 'reminder_only');
    const [first] = await obligationsOf(api, schedule.id);
    await advance(api, { to: new Date(Date.parse(lagosEight('2027-12-23')) - 60_000).toISOString() });
    const queued = (await listOf(api, '/reminders?limit=100')).filter((r) => r.obligationId === first?.id);
    assert.deepEqual(
      queued.map((r) => [r.stage, r.status, r.sendAt]),
      [['3_days_before', 'queued', lagosEight('2027-12-23')]],
    );
    await advance(api, { hours: 1 });
    const sent = (await listOf(api, '/reminders?limit=100')).filter((r) => r.obligationId === first?.id);
    assert.deepEqual(
      sent.map((r) => [r.stage, r.status, r.sentAt]),
      [['3_days_before', 'sent', lagosEight('2027-12-23')]],
    );
  });

  test('a retry ladder: a failing debit is tried again 1, 3 and 7 days after the first failure, each at its time', async () => {
    const { api, workspaceId } = await lagos();
    const { schedule } = await monthly(api, 100_013, 'auto_debit');
    await approvedMandate(t, api, schedule.id);

    const moved = await advance(api, { to: '2028-01-03T12:00:00Z' });
    assert.equal(moved.ran['attempts.run'], 4, JSON.stringify(moved.ran));
    const first = Date.parse(lagosDay('2027-12-26'));
    const at = (days: number) => new Date(first + days * DAY_MS).toISOString();
    const attempts = await attemptsOf(api, schedule.id);
    assert.deepEqual(
      attempts.map((a) => [
        a.attempt_number,
        a.status,
        a.failure_code,
        a.scheduled_for,
        a.attempted_at,
        a.next_retry_at,
        a.no_retry_reason,
      ]),
      [
        [1, 'failed', 'insufficient_funds', at(0), at(0), at(1), null],
        [2, 'failed', 'insufficient_funds', at(1), at(1), at(3), null],
        [3, 'failed', 'insufficient_funds', at(3), at(3), at(7), null],
        [4, 'failed', 'insufficient_funds', at(7), at(7), null, 'retries_exhausted'],
      ],
    );
    // Meanwhile the obligation fell overdue once its due day was over, and only then.
    const overdue = await eventsOf(t, workspaceId, 'obligation.overdue');
    assert.deepEqual(
      overdue.map((e) => e.createdAt),
      [lagosDay('2027-12-27')],
    );
  });

  test('a payment made between two advances is taken into account by the steps of the next one', async () => {
    const { api } = await lagos();
    const { plan, schedule } = await monthly(api, 100_000, 'auto_debit');
    await approvedMandate(t, api, schedule.id);
    await advance(api, { to: '2027-12-27T12:00:00Z' });
    await newPayment(api, plan.id, { amount: 100_000 });
    await advance(api, { days: 40 });
    assert.deepEqual(
      (await attemptsOf(api, schedule.id)).map((a) => [a.status, a.attempted_at]),
      [['succeeded', lagosDay('2027-12-26')]],
      'the second instalment was paid by hand before its day: no debit',
    );
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 100_000);
  });

  test('an attempt blocked for want of a mandate runs at the start of the next advance once one is approved', async () => {
    const { api } = await lagos();
    const { schedule } = await monthly(api, 100_000, 'auto_debit');
    await advance(api, { to: '2027-12-26T10:00:00Z' });
    assert.deepEqual(
      (await attemptsOf(api, schedule.id)).map((a) => [a.status, a.blocked_reason]),
      [['blocked', 'no_active_mandate']],
    );
    await approvedMandate(t, api, schedule.id);
    const moved = await advance(api, { hours: 1 });
    const [attempt] = await attemptsOf(api, schedule.id);
    assert.equal(attempt?.status, 'succeeded');
    assert.equal(
      attempt?.attempted_at,
      '2027-12-26T10:00:00.000Z',
      'at the first step: the time it advanced from',
    );
    assert.equal(moved.ran['attempts.run'], 1);
  });

  test('three years of monthly debits at once: each of the 36 instalments charged on its own due day', async () => {
    const { api } = await lagos();
    const payer = await newCustomer(api);
    const plan = await newTrack(api, { customerId: payer.id, amount: 100 * 10_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 10_000,
      start_date: '2027-12-31T09:00:00Z',
      collection_method: 'auto_debit',
    });
    await approvedMandate(t, api, schedule.id);

    const res = await api.post('/account/test-clock/advance', { to: '2030-12-01T00:00:00Z' });
    assert.ok([200, 202].includes(res.status), JSON.stringify(res.body));
    await t.worker.drain();
    assert.equal((await api.get('/account/test-clock')).body.data.status, 'ready');
    const attempts = await attemptsOf(api, schedule.id);
    const dueDates = (await obligationsOf(api, schedule.id))
      .filter((o) => o.due_date < '2030-12-01')
      .map((o) => o.due_date as string);
    assert.equal(dueDates.length, 36);
    // Month ends clamp: 31 Dec, 29 Feb 2028, 31 Mar, 30 Apr ...
    assert.deepEqual(dueDates.slice(0, 4), ['2027-12-31', '2028-01-31', '2028-02-29', '2028-03-31']);
    assert.deepEqual(
      attempts.map((a) => [a.status, a.attempted_at]),
      dueDates.map((date) => ['succeeded', lagosDay(date)]),
    );
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 64 * 10_000);
  });
});

describe('the worker, in real time', () => {
  test('runs the attempt it creates at once, as of the same instant: nothing waits for the next minute', async () => {
    const { api, workspaceId } = await lagos();
    const { schedule } = await monthly(api, 100_000, 'auto_debit');
    await approvedMandate(t, api, schedule.id);
    // The test clock is moved to the due day by a direct write, as if it had got there by real time passing.
    const to = Date.parse('2027-12-26T10:00:00Z');
    await t.ctx.db
      .insertInto('test_clocks')
      .values({
        workspace_id: workspaceId,
        offset_ms: to - Date.parse(NOW),
        status: 'ready',
        swept_to: null,
        updated_at: NOW,
      })
      .execute();

    const jobCtx = { ...t.ctx, log: t.app.log, signal: new AbortController().signal };
    const job = { id: 'job_test', attempt: 1, maxAttempts: 1, previousRunLost: false };
    await sweepJob.run(jobCtx, { sweep: 'attempts.create', everyMs: 60_000 }, job, undefined);

    const [attempt, ...more] = await attemptsOf(api, schedule.id);
    assert.equal(more.length, 0);
    assert.equal(attempt?.status, 'succeeded', 'attempts.run ran right after attempts.create');
    assert.equal(attempt?.created_at, new Date(to).toISOString());
    assert.equal(attempt?.attempted_at, new Date(to).toISOString());
  });
});

describe('an advance with more work than its budget steps on in the worker', () => {
  let b: TestApp;
  before(async () => {
    b = await buildTestApp({
      clock: new ManualClock(new Date(NOW)),
      env: { TEST_CLOCK_ADVANCE_BUDGET: '3' },
    });
  });
  after(() => b.close());

  test('answers 202 at the step it reached; the worker goes on from there, each instalment charged on its day', async () => {
    const { api, workspaceId } = await lagos(b);
    const plans = [];
    for (let i = 0; i < 3; i++) {
      const made = await monthly(api, 100_000, 'auto_debit');
      await approvedMandate(b, api, made.schedule.id);
      plans.push(made);
    }

    const target = new Date(Date.parse(NOW) + 80 * DAY_MS).toISOString();
    const moved = await advance(api, { days: 80 }, 202);
    assert.equal(moved.status, 'advancing');
    assert.equal(moved.now, target);
    const kept = await b.ctx.db
      .selectFrom('test_clocks')
      .select(['status', 'swept_to'])
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    assert.equal(kept.status, 'advancing');
    assert.ok(kept.swept_to !== null && kept.swept_to < target, `stopped at ${kept.swept_to}`);

    await b.worker.drain();
    assert.equal((await api.get('/account/test-clock')).body.data.status, 'ready');
    for (const { plan, schedule } of plans) {
      assert.deepEqual(
        (await attemptsOf(api, schedule.id)).map((a) => [a.status, a.attempted_at]),
        [
          ['succeeded', lagosDay('2027-12-26')],
          ['succeeded', lagosDay('2028-01-26')],
          ['succeeded', lagosDay('2028-02-26')],
        ],
      );
      assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 0);
    }
    assert.deepEqual(await eventsOf(b, workspaceId, 'obligation.overdue'), []);
    const done = await b.ctx.db
      .selectFrom('test_clocks')
      .select('swept_to')
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    assert.equal(done.swept_to, null);
  });

  test('an advance left advancing by a version that did not step is finished as of its target', async () => {
    const { api, workspaceId } = await lagos(b);
    const { schedule } = await monthly(api, 100_000, 'manual');
    const offsetMs = 10 * DAY_MS;
    const to = new Date(Date.parse(NOW) + offsetMs).toISOString();
    await inTransaction(b.ctx, null, async (trx) => {
      await trx
        .insertInto('test_clocks')
        .values({
          workspace_id: workspaceId,
          offset_ms: offsetMs,
          status: 'advancing',
          swept_to: null,
          updated_at: NOW,
        })
        .execute();
      await enqueue(trx, b.clock, finishAdvanceJob, { workspaceId, to, offsetMs });
    });
    await b.worker.drain();
    assert.equal((await api.get('/account/test-clock')).body.data.status, 'ready');
    const [first] = await obligationsOf(api, schedule.id);
    assert.equal(first?.status, 'overdue');
    assert.equal(first?.updated_at, to, 'its due work done as of the target, as that version did');
  });
});
