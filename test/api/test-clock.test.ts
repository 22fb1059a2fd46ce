import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

const DAY_MS = 86_400_000;
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
    assert.deepEqual(res.body.data, { now: t.clock.now().toISOString(), offsetMs: 0 });
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
