import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sweepScopes } from '../../src/clock/tenant-clocks.js';
import { runSweepsNow, runSweepsWithin, type SweepDefinition } from '../../src/jobs/sweeps.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** How far past real time the test clock may go: 10 years, counted as 3,652 days. */
const BOUND_DAYS = 3_652;
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The creation time an id carries in its first 10 characters after the prefix. */
function idTime(id: string): number {
  const body = id.slice(id.indexOf('_') + 1);
  return [...body.slice(0, 10)].reduce((ms, c) => ms * 32 + ALPHABET.indexOf(c), 0);
}

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

describe('the test clock', () => {
  test('starts at real time, and GET shows it with its offset', async () => {
    const { api } = await newWorkspace(t);
    const res = await api.get('/account/test-clock');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data, { now: t.clock.now().toISOString(), offsetMs: 0, status: 'ready' });
  });

  test('moves one workspace and not another: timestamps, ids and defaults follow it', async () => {
    const a = await newWorkspace(t);
    const b = await newWorkspace(t);
    const real = t.clock.now().getTime();

    const moved = await a.api.post('/account/test-clock/advance', { days: 10 });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.data.now, new Date(real + 10 * DAY_MS).toISOString());
    assert.equal(moved.body.data.previous, new Date(real).toISOString());
    assert.equal(moved.body.data.offsetMs, 10 * DAY_MS);
    assert.equal(moved.body.data.status, 'ready');
    assert.equal(typeof moved.body.data.ran['idempotency.expire'], 'number');

    assert.equal(
      (await a.api.get('/account/test-clock')).body.data.now,
      new Date(real + 10 * DAY_MS).toISOString(),
    );
    assert.equal((await b.api.get('/account/test-clock')).body.data.now, new Date(real).toISOString());

    const inA = await newCustomer(a.api);
    const inB = await newCustomer(b.api);
    const liveInA = await newCustomer(a.live);
    assert.equal(inA.createdAt, new Date(real + 10 * DAY_MS).toISOString());
    assert.equal(idTime(inA.id), real + 10 * DAY_MS);
    assert.equal(inB.createdAt, new Date(real).toISOString());
    assert.equal(idTime(inB.id), real);
    assert.equal(liveInA.createdAt, new Date(real).toISOString(), 'live mode keeps real time');

    // A payment's default paidAt and the "not in the future" check read the tenant's clock too.
    const plan = await newTrack(a.api, { customerId: inA.id, amount: 1_000 });
    const payment = await newPayment(a.api, plan.id, { amount: 10 });
    assert.equal(payment.paidAt, new Date(real + 10 * DAY_MS).toISOString());
    const planB = await newTrack(b.api, { customerId: inB.id, amount: 1_000 });
    const ahead = await b.api.post('/payments', {
      trackId: planB.id,
      amount: 10,
      paidAt: new Date(real + 5 * DAY_MS).toISOString(),
    });
    assert.equal(ahead.status, 422);
    assert.ok(ahead.body.error.details.fields.paidAt);

    // It keeps running at real speed from where it was moved.
    t.clock.advance(60_000);
    assert.equal(
      (await a.api.get('/account/test-clock')).body.data.now,
      new Date(real + 10 * DAY_MS + 60_000).toISOString(),
    );
  });

  test('moves by hours or to an instant, never back', async () => {
    const { api } = await newWorkspace(t);
    const real = t.clock.now().getTime();
    assert.equal(
      (await api.post('/account/test-clock/advance', { hours: 5 })).body.data.now,
      new Date(real + 5 * 3_600_000).toISOString(),
    );
    const to = new Date(real + 3 * DAY_MS).toISOString();
    const res = await api.post('/account/test-clock/advance', { to });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.now, to);

    const back = await api.post('/account/test-clock/advance', { to: new Date(real + DAY_MS).toISOString() });
    assert.equal(back.status, 422);
    assert.equal(back.body.error.code, 'validation_error');
    assert.match(back.body.error.details.fields.to, /before/);
    assert.equal((await api.get('/account/test-clock')).body.data.now, to, 'a refused advance moves nothing');
  });

  test('asks for exactly one of to, days and hours, each in range', async () => {
    const { api } = await newWorkspace(t);
    const none = await api.post('/account/test-clock/advance', {});
    assert.equal(none.status, 422);
    assert.deepEqual(Object.keys(none.body.error.details.fields).sort(), ['days', 'hours', 'to']);
    const two = await api.post('/account/test-clock/advance', { days: 1, hours: 2 });
    assert.equal(two.status, 422);
    assert.deepEqual(Object.keys(two.body.error.details.fields).sort(), ['days', 'hours']);
    for (const body of [{ days: 0 }, { days: 1.5 }, { hours: -1 }, { to: 'tomorrow' }, { weeks: 1 }]) {
      const res = await api.post('/account/test-clock/advance', body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual(Object.keys(res.body.error.details.fields), Object.keys(body));
    }
    assert.equal((await api.get('/account/test-clock')).body.data.offsetMs, 0);
  });

  test('goes at most 3,652 days past real time, in every form; past it a validation_error names the field given', async () => {
    const { api } = await newWorkspace(t);
    const real = t.clock.now().getTime();
    const limit = real + BOUND_DAYS * DAY_MS;
    for (const body of [
      { days: BOUND_DAYS + 1 },
      { hours: BOUND_DAYS * 24 + 1 },
      { to: new Date(limit + 1).toISOString() },
      { to: '9999-12-31T23:59:59Z' },
    ]) {
      const res = await api.post('/account/test-clock/advance', body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(res.body.error.code, 'validation_error');
      assert.deepEqual(Object.keys(res.body.error.details.fields), Object.keys(body));
    }
    assert.equal((await api.get('/account/test-clock')).body.data.offsetMs, 0, 'nothing moved');

    // The bound is real time's, not the test clock's: moved 3,000 days, the clock has 652 left.
    assert.equal((await api.post('/account/test-clock/advance', { days: 3_000 })).status, 200);
    for (const body of [{ days: 653 }, { hours: 652 * 24 + 1 }]) {
      const res = await api.post('/account/test-clock/advance', body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.match(Object.values(res.body.error.details.fields)[0] as string, /3,652 days/);
      assert.match(
        Object.values(res.body.error.details.fields)[0] as string,
        new RegExp(new Date(limit).toISOString()),
      );
    }
    const toLimit = await api.post('/account/test-clock/advance', { to: new Date(limit).toISOString() });
    assert.equal(toLimit.status, 200, JSON.stringify(toLimit.body));
    assert.equal(toLimit.body.data.now, new Date(limit).toISOString());
    assert.equal((await api.post('/account/test-clock/advance', { hours: 1 })).status, 422);

    // The clock keeps running at real speed: it stays at the bound as real time passes.
    t.clock.advance(2 * HOUR_MS);
    assert.equal(
      (await api.get('/account/test-clock')).body.data.now,
      new Date(limit + 2 * HOUR_MS).toISOString(),
    );
    const later = await api.post('/account/test-clock/advance', { hours: 1 });
    assert.equal(later.status, 422);
    assert.ok(later.body.error.details.fields.hours);
  });

  test("the document states the bound, the 202 and the clock's status", async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const advance = doc.paths['/api/v1/account/test-clock/advance'].post;
    assert.match(advance.description, /3,652 days \(10 years\) past real time/);
    assert.match(advance.description, /202/);
    assert.ok(advance.responses['200'] && advance.responses['202']);
    assert.match(doc.paths['/api/v1/account/test-clock'].get.description, /advancing/);
    const clock = doc.components.schemas.TestClock;
    assert.deepEqual(clock.properties.status.enum, ['ready', 'advancing']);
    assert.ok(clock.properties.status.description);
    const body = doc.components.schemas.TestClockAdvance.properties;
    assert.equal(body.days.maximum, BOUND_DAYS);
    assert.equal(body.hours.maximum, BOUND_DAYS * 24);
  });

  test('refuses live keys with forbidden, and checks the account scope', async () => {
    const { api, live, workspaceId } = await newWorkspace(t);
    for (const res of [
      await live.get('/account/test-clock'),
      await live.post('/account/test-clock/advance', { days: 1 }),
    ]) {
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'forbidden');
      assert.equal(res.body.error.details.required_mode, 'test');
    }
    const reader = await newKey(t, workspaceId, { scopes: ['account:read'] });
    assert.equal((await reader.api.get('/account/test-clock')).status, 200);
    const refused = await reader.api.post('/account/test-clock/advance', { days: 1 });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.details.required_scope, 'account:write');
    assert.equal((await api.get('/account/test-clock')).body.data.offsetMs, 0);
  });

  test("runs the workspace's due time-driven work before answering: idempotency keys expire", async () => {
    const { api } = await newWorkspace(t);
    const other = await newWorkspace(t);
    const body = { name: 'Kemi Bello', phone: '+2348037778888' };
    const first = await api.post('/customers', body, { 'idempotency-key': 'kept-a-day' });
    await other.api.post('/customers', body, { 'idempotency-key': 'kept-a-day' });

    const advanced = await api.post('/account/test-clock/advance', { hours: 25 });
    assert.equal(advanced.status, 200);
    assert.equal(advanced.body.data.ran['idempotency.expire'], 1, "this workspace's key, not the other's");

    const again = await api.post('/customers', body, { 'idempotency-key': 'kept-a-day' });
    assert.equal(again.status, 201);
    assert.equal(again.headers['idempotent-replayed'], undefined);
    assert.notEqual(again.body.data.id, first.body.data.id);
    const otherAgain = await other.api.post('/customers', body, { 'idempotency-key': 'kept-a-day' });
    assert.equal(otherAgain.headers['idempotent-replayed'], 'true');
  });

  test('advances at once are applied one after the other', async () => {
    const { api } = await newWorkspace(t);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => api.post('/account/test-clock/advance', { hours: 1 })),
    );
    for (const res of results) assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((await api.get('/account/test-clock')).body.data.offsetMs, 5 * 3_600_000);
  });
});

/** Every workspace of the bounded tests starts on this time; their advances handle at most 20 records at once. */
const NOW = '2028-01-20T12:00:00.000Z';
const BUDGET = 20;

describe('an advance with more work than its budget', () => {
  let b: TestApp;
  before(async () => {
    b = await buildTestApp({
      clock: new ManualClock(new Date(NOW)),
      env: { TEST_CLOCK_ADVANCE_BUDGET: String(BUDGET) },
    });
  });
  after(() => b.close());

  /** `count` plans, each with an open-ended daily schedule whose first obligation falls due on 2028-01-21. */
  async function dailySchedules(api: Client, count: number): Promise<string[]> {
    const customer = await newCustomer(api);
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const plan = await newTrack(api, { customerId: customer.id, amount: 1_000_000 });
      const res = await api.post('/collection-schedules', {
        target_type: 'payment_plan',
        target_id: plan.id,
        frequency: 'daily',
        fixed_amount: 1_000,
        start_date: '2028-01-21T09:00:00Z',
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids.push(res.body.data.id);
    }
    return ids;
  }

  async function overdueOf(api: Client, scheduleId: string): Promise<string[]> {
    const res = await api.get(`/collection-schedules/${scheduleId}/obligations?limit=100`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data.items
      .filter((o: { status: string }) => o.status === 'overdue')
      .map((o: { due_date: string }) => o.due_date)
      .sort();
  }

  test('answers 202 at its new time, shows advancing, refuses another advance, and the worker finishes it', async () => {
    const { api, workspaceId } = await newWorkspace(b);
    const other = await newWorkspace(b);
    const schedules = await dailySchedules(api, 30);
    const target = new Date(Date.parse(NOW) + 5 * DAY_MS);

    const moved = await api.post('/account/test-clock/advance', { days: 5 });
    assert.equal(moved.status, 202, JSON.stringify(moved.body));
    assert.equal(moved.body.data.status, 'advancing');
    assert.equal(moved.body.data.now, target.toISOString());
    assert.equal(moved.body.data.previous, NOW);
    assert.equal(moved.body.data.offsetMs, 5 * DAY_MS);
    const ranSoFar = Object.values(moved.body.data.ran as Record<string, number>).reduce((a, n) => a + n, 0);
    assert.ok(ranSoFar >= BUDGET, JSON.stringify(moved.body.data.ran));
    // Each sweep stops at what is left of the budget: past it by one schedule's top-up at most (12 ahead + 5 days).
    assert.ok(ranSoFar <= BUDGET + 17, `the answer did ${ranSoFar} records for a budget of ${BUDGET}`);

    const shown = await api.get('/account/test-clock');
    assert.deepEqual(shown.body.data, {
      now: target.toISOString(),
      offsetMs: 5 * DAY_MS,
      status: 'advancing',
    });
    const again = await api.post('/account/test-clock/advance', { hours: 1 });
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.equal(again.body.error.code, 'invalid_state');
    assert.equal(again.body.error.details.status, 'advancing');
    assert.equal(
      (await api.get('/account/test-clock')).body.data.offsetMs,
      5 * DAY_MS,
      'the 409 moved nothing',
    );

    // The workspace's records are at the new time already, part of the due work still to do: the sweep has not
    // yet recorded every obligation overdue (the lists show each one overdue already, by the clock's time).
    assert.ok(
      (moved.body.data.ran['obligations.overdue'] ?? 0) < 4 * schedules.length,
      JSON.stringify(moved.body.data.ran),
    );
    assert.ok(
      (await Promise.all(schedules.map((id) => overdueOf(api, id)))).every((due) => due.length === 4),
    );
    // The worker's sweeps leave the advancing workspace to its advance, and go on for every other one.
    const scopes = await sweepScopes(b.ctx.db, b.clock);
    assert.ok(!scopes.some((scope) => scope.workspaceId === workspaceId));
    assert.ok(
      scopes.some((scope) => scope.mode === 'test' && scope.exceptWorkspaceIds?.includes(workspaceId)),
    );

    // Another workspace is answered meanwhile, its own advance included.
    const draining = b.worker.drain();
    const [customers, otherMoved] = await Promise.all([
      other.api.get('/customers'),
      other.api.post('/account/test-clock/advance', { days: 1 }),
    ]);
    assert.equal(customers.status, 200);
    assert.equal(otherMoved.status, 200, JSON.stringify(otherMoved.body));
    assert.equal(otherMoved.body.data.status, 'ready');
    await draining;

    assert.deepEqual((await api.get('/account/test-clock')).body.data, {
      now: target.toISOString(),
      offsetMs: 5 * DAY_MS,
      status: 'ready',
    });
    for (const id of schedules) {
      assert.deepEqual(await overdueOf(api, id), ['2028-01-21', '2028-01-22', '2028-01-23', '2028-01-24']);
    }
    const left = await runSweepsNow(b.ctx, { mode: 'test', workspaceId, now: target });
    assert.deepEqual(
      Object.entries(left).filter(([, n]) => n > 0),
      [],
      'nothing due at the new time was left undone',
    );

    const next = await api.post('/account/test-clock/advance', { hours: 1 });
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.equal(next.body.data.status, 'ready');
  });

  test('each sweep is asked for no more than what is left of the budget, and one that stops there is run again', async () => {
    const { workspaceId } = await newWorkspace(b);
    let due = 50;
    const asked: (number | undefined)[] = [];
    const countdown: SweepDefinition = {
      name: 'test.countdown',
      everyMs: 60_000,
      async run(_ctx, scope) {
        asked.push(scope.limit);
        const handled = Math.min(due, scope.limit ?? due);
        due -= handled;
        return handled;
      },
    };
    const ctx = { ...b.ctx, registry: { ...b.ctx.registry, sweeps: [countdown] } };
    const scope = { mode: 'test' as const, workspaceId, now: b.clock.now() };
    assert.deepEqual(await runSweepsWithin(ctx, scope, BUDGET), {
      ran: { 'test.countdown': 20 },
      done: false,
    });
    assert.deepEqual(await runSweepsWithin(ctx, scope, BUDGET), {
      ran: { 'test.countdown': 20 },
      done: false,
    });
    assert.deepEqual(await runSweepsWithin(ctx, scope, BUDGET), {
      ran: { 'test.countdown': 10 },
      done: true,
    });
    assert.deepEqual(asked, [20, 20, 20, 10]);
    assert.deepEqual(await runSweepsNow(ctx, scope), { 'test.countdown': 0 });
    assert.equal(asked.at(-1), undefined, 'without a budget a run handles all that is due');
  });

  test('an advance whose work fits the budget answers 200 as before', async () => {
    const { api } = await newWorkspace(b);
    const plan = await newTrack(api, { amount: 50_000 });
    const res = await api.post('/collection-schedules', {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'one_time',
      fixed_amount: 20_000,
      start_date: '2028-01-21T09:00:00Z',
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const moved = await api.post('/account/test-clock/advance', { days: 2 });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.data.status, 'ready');
    assert.equal(moved.body.data.ran['obligations.overdue'], 1);
    assert.deepEqual(await overdueOf(api, res.body.data.id), ['2028-01-21']);
    assert.equal((await api.get('/account/test-clock')).body.data.status, 'ready');
  });

  test('a 202 advance kept under an Idempotency-Key is replayed as 202', async () => {
    const { api } = await newWorkspace(b);
    await dailySchedules(api, 10);
    // Within the 24 hours the key is kept, by the test clock.
    const body = { hours: 23 };
    const first = await api.post('/account/test-clock/advance', body, { 'idempotency-key': 'far-ahead' });
    assert.equal(first.status, 202, JSON.stringify(first.body));
    const replayed = await api.post('/account/test-clock/advance', body, { 'idempotency-key': 'far-ahead' });
    assert.equal(replayed.status, 202);
    assert.equal(replayed.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replayed.body.data, first.body.data);
    await b.worker.drain();
    assert.equal((await api.get('/account/test-clock')).body.data.status, 'ready');
  });
});

describe('a server whose real time is within 10 years of 9999', () => {
  let late: TestApp;
  before(async () => {
    late = await buildTestApp({ clock: new ManualClock(new Date('9995-06-01T00:00:00.000Z')) });
  });
  after(() => late.close());

  test('never takes the test clock past 9999-12-31: the clock path never writes +010000', async () => {
    const { api } = await newWorkspace(late);
    const far = await api.post('/account/test-clock/advance', { days: BOUND_DAYS });
    assert.equal(far.status, 422);
    assert.match(far.body.error.details.fields.days, /at most to 9999-12-31T23:59:59\.999Z/);
    const last = await api.post('/account/test-clock/advance', { to: '9999-12-31T23:59:59.999Z' });
    assert.equal(last.status, 200, JSON.stringify(last.body));
    const shown = await api.get('/account/test-clock');
    assert.equal(shown.body.data.now, '9999-12-31T23:59:59.999Z');
    assert.doesNotMatch(JSON.stringify([last.body, shown.body]), /\+0100/);
  });
});
