import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ApiResponse, Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(async () => {
  await t.close();
});

function assertNotFound(res: ApiResponse, label: string): void {
  assert.equal(res.status, 404, `${label}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.success, false);
  assert.equal(res.body.error.code, 'not_found', label);
}

/** One customer, plan and payment made through `api`. */
async function seed(api: Client) {
  const customer = await newCustomer(api, { name: 'Owner Only', email: 'owner@example.com' });
  const track = await newTrack(api, { customerId: customer.id, amount: 20_000 });
  const payment = await newPayment(api, track.id, { amount: 2_000, reference: 'BANK-REF-1' });
  // As it now reads, with what it owes.
  return { customer: (await api.get(`/customers/${customer.id}`)).body.data, track, payment };
}

/** Every id on every list the client can see, walking all pages. */
async function visibleIds(api: Client, path: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `?limit=100&cursor=${encodeURIComponent(cursor)}` : '?limit=100';
    const res = await api.get(`${path}${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    ids.push(...res.body.data.items.map((item: { id: string }) => item.id));
    cursor = res.body.data.next_cursor;
  } while (cursor);
  return ids;
}

/** The ids a ledger entry points at: its own, its plan, its customer and its refs. */
async function visibleLedgerRefs(api: Client): Promise<string[]> {
  const res = await api.get('/ledger?limit=100');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.items.flatMap(
    (e: { id: string; trackId: string; customerId: string; refs: object }) => [
      e.id,
      e.trackId,
      e.customerId,
      ...Object.values(e.refs),
    ],
  );
}

/** Asserts that `other` can neither read nor change `rows`, whatever the route. */
async function assertUnreachable(other: Client, rows: Awaited<ReturnType<typeof seed>>): Promise<void> {
  const { customer, track, payment } = rows;
  assertNotFound(await other.get(`/customers/${customer.id}`), 'GET customer');
  assertNotFound(await other.patch(`/customers/${customer.id}`, { name: 'Hijacked' }), 'PATCH customer');
  assertNotFound(await other.delete(`/customers/${customer.id}`), 'DELETE customer');
  assertNotFound(await other.get(`/customers/${customer.id}/ledger`), 'customer ledger');
  assertNotFound(await other.get(`/tracks/${track.id}`), 'GET track');
  assertNotFound(
    await other.patch(`/tracks/${track.id}`, { title: 'Hijacked', amount: 2_000 }),
    'PATCH track',
  );
  assertNotFound(await other.delete(`/tracks/${track.id}`), 'DELETE track');
  assertNotFound(await other.get(`/tracks/${track.id}/payments`), 'track payments');
  assertNotFound(await other.get(`/tracks/${track.id}/ledger`), 'track ledger');
  assertNotFound(await other.get(`/payments/${payment.id}`), 'GET payment');

  const createTrack = await other.post('/tracks', {
    customerId: customer.id,
    title: 'Stolen',
    amount: 1_000,
  });
  assertNotFound(createTrack, 'POST track');
  assert.equal(createTrack.body.error.details.field, 'customerId');
  const pay = await other.post('/payments', { trackId: track.id, amount: 1_000 });
  assertNotFound(pay, 'POST payment');
  assert.equal(pay.body.error.details.field, 'trackId');

  const listed = [
    ...(await visibleIds(other, '/customers')),
    ...(await visibleIds(other, '/tracks')),
    ...(await visibleIds(other, '/payments')),
    ...(await visibleIds(other, `/payments?trackId=${track.id}`)),
    ...(await visibleIds(other, `/payments?customerId=${customer.id}`)),
    ...(await visibleIds(other, `/tracks?customerId=${customer.id}`)),
    ...(await visibleLedgerRefs(other)),
  ];
  for (const id of [customer.id, track.id, payment.id]) assert.ok(!listed.includes(id), `${id} is listed`);
}

/** Asserts the owner still sees its rows exactly as they were. */
async function assertUntouched(owner: Client, rows: Awaited<ReturnType<typeof seed>>): Promise<void> {
  const customer = await owner.get(`/customers/${rows.customer.id}`);
  assert.deepEqual(customer.body.data, rows.customer);
  const track = await owner.get(`/tracks/${rows.track.id}`);
  assert.equal(track.body.data.title, rows.track.title);
  assert.equal(track.body.data.status, 'active');
  assert.equal(track.body.data.amount, 20_000);
  assert.equal(track.body.data.balance, 18_000);
  assert.deepEqual(await visibleIds(owner, '/payments'), [rows.payment.id]);
  assert.equal((await visibleIds(owner, '/tracks')).length, 1);
  assert.equal((await owner.get('/ledger')).body.data.items.length, 2);
}

describe('between workspaces', () => {
  test("B's key gets 404 for A's records on every route and changes nothing", async () => {
    const a = await newWorkspace(t);
    const b = await newWorkspace(t);
    const rows = await seed(a.api);

    await assertUnreachable(b.api, rows);
    await assertUnreachable(b.live, rows);
    await assertUntouched(a.api, rows);
  });

  test("B's lists show B's rows only", async () => {
    const a = await newWorkspace(t);
    const b = await newWorkspace(t);
    const aRows = await seed(a.api);
    const bRows = await seed(b.api);

    assert.deepEqual(await visibleIds(b.api, '/customers'), [bRows.customer.id]);
    assert.deepEqual(await visibleIds(b.api, '/tracks'), [bRows.track.id]);
    assert.deepEqual(await visibleIds(b.api, '/payments'), [bRows.payment.id]);
    assert.deepEqual(await visibleIds(a.api, '/customers'), [aRows.customer.id]);
    const bLedger = await b.api.get('/ledger');
    for (const entry of bLedger.body.data.items) assert.equal(entry.trackId, bRows.track.id);
    assert.equal(bLedger.body.data.items.length, 2);
    const byQuery = await b.api.get('/customers?q=owner');
    assert.deepEqual(
      byQuery.body.data.items.map((c: { id: string }) => c.id),
      [bRows.customer.id],
    );
  });

  test('reads of several workspaces and modes that arrive together each answer from their own rows only', async () => {
    const a = await newWorkspace(t);
    const b = await newWorkspace(t);
    const aRows = await seed(a.api);
    const bRows = await seed(b.api);

    const answers = await Promise.all([
      a.api.get(`/tracks/${aRows.track.id}`),
      b.api.get(`/tracks/${aRows.track.id}`),
      b.api.get(`/tracks/${bRows.track.id}`),
      a.live.get(`/tracks/${aRows.track.id}`),
      a.api.get(`/tracks/${aRows.track.id}`),
      a.api.get('/tracks/trk_01JZZZZZZZZZZZZZZZZZZZZZZZ'),
      a.api.get(`/customers/${aRows.customer.id}`),
      b.api.get(`/customers/${aRows.customer.id}`),
      a.api.get(`/payments/${aRows.payment.id}`),
      b.api.get(`/payments/${aRows.payment.id}`),
      b.api.get(`/payments/${bRows.payment.id}`),
    ]);
    assert.deepEqual(
      answers.map((res) => [res.status, res.body.data?.id ?? res.body.error.code]),
      [
        [200, aRows.track.id],
        [404, 'not_found'],
        [200, bRows.track.id],
        [404, 'not_found'],
        [200, aRows.track.id],
        [404, 'not_found'],
        [200, aRows.customer.id],
        [404, 'not_found'],
        [200, aRows.payment.id],
        [404, 'not_found'],
        [200, bRows.payment.id],
      ],
    );
    assert.equal(answers[0]?.body.data.balance, 18_000);
  });

  test("a cursor from A's list shows B nothing of A's", async () => {
    const a = await newWorkspace(t);
    const b = await newWorkspace(t);
    const rows = await seed(a.api);
    await newCustomer(a.api);
    const page = await a.api.get('/customers?limit=1');
    const cursor = page.body.data.next_cursor;
    assert.equal(typeof cursor, 'string');

    const res = await b.api.get(`/customers?cursor=${encodeURIComponent(cursor)}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(!res.body.data.items.some((c: { id: string }) => c.id === rows.customer.id));
  });
});

describe('idempotency keys', () => {
  test('the same Idempotency-Key in another workspace or mode is a new request, not a replay', async () => {
    const a = await newWorkspace(t);
    const b = await newWorkspace(t);
    const body = { name: 'Same Body', phone: '+2348031239999' };
    const headers = { 'idempotency-key': 'import-2024-06-01' };

    const first = await a.api.post('/customers', body, headers);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const replay = await a.api.post('/customers', body, headers);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body.data.id, first.body.data.id);

    for (const other of [b.api, a.live]) {
      const res = await other.post('/customers', body, headers);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.notEqual(res.body.data.id, first.body.data.id);
      assert.notEqual(res.headers['idempotent-replayed'], 'true');
      assertNotFound(await other.get(`/customers/${first.body.data.id}`), 'replayed id');
    }
  });
});

describe('between test and live mode of one workspace', () => {
  test('a live key does not see test-mode records', async () => {
    const ws = await newWorkspace(t);
    const rows = await seed(ws.api);
    await assertUnreachable(ws.live, rows);
    await assertUntouched(ws.api, rows);
  });

  test('a test key does not see live-mode records', async () => {
    const ws = await newWorkspace(t);
    const rows = await seed(ws.live);
    await assertUnreachable(ws.api, rows);
    await assertUntouched(ws.live, rows);
  });

  test('each mode lists its own rows only', async () => {
    const ws = await newWorkspace(t);
    const testRows = await seed(ws.api);
    const liveRows = await seed(ws.live);

    assert.deepEqual(await visibleIds(ws.api, '/customers'), [testRows.customer.id]);
    assert.deepEqual(await visibleIds(ws.live, '/customers'), [liveRows.customer.id]);
    assert.deepEqual(await visibleIds(ws.api, '/tracks'), [testRows.track.id]);
    assert.deepEqual(await visibleIds(ws.live, '/tracks'), [liveRows.track.id]);
    assert.deepEqual(await visibleIds(ws.api, '/payments'), [testRows.payment.id]);
    assert.deepEqual(await visibleIds(ws.live, '/payments'), [liveRows.payment.id]);
    for (const entry of (await ws.live.get('/ledger')).body.data.items)
      assert.equal(entry.trackId, liveRows.track.id);
    for (const entry of (await ws.api.get('/ledger')).body.data.items)
      assert.equal(entry.trackId, testRows.track.id);
  });

  test('a reference used in test mode may be used again in live mode, but not twice in one mode', async () => {
    const ws = await newWorkspace(t);
    const testTrack = await newTrack(ws.api);
    const liveTrack = await newTrack(ws.live);

    const first = await newPayment(ws.api, testTrack.id, { reference: 'GTB-000123' });
    const reused = await newPayment(ws.live, liveTrack.id, { reference: 'GTB-000123' });
    assert.notEqual(first.id, reused.id);
    assert.equal(reused.reference, 'GTB-000123');

    const twice = await ws.live.post('/payments', {
      trackId: liveTrack.id,
      amount: 1_000,
      reference: 'GTB-000123',
    });
    assert.equal(twice.status, 422, JSON.stringify(twice.body));
    assert.equal(twice.body.error.code, 'validation_error');
    assert.ok(twice.body.error.details.fields.reference);
  });

  test('a reference used in another workspace does not block this one', async () => {
    const a = await newWorkspace(t);
    const b = await newWorkspace(t);
    await newPayment(a.api, (await newTrack(a.api)).id, { reference: 'SHARED-REF' });
    const res = await newPayment(b.api, (await newTrack(b.api)).id, { reference: 'SHARED-REF' });
    assert.equal(res.reference, 'SHARED-REF');
  });
});
