import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';

describe('Idempotency-Key', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  test('the same key and body replays the first response and records one payment', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 1_000 });
    const body = { trackId: plan.id, amount: 250 };
    const first = await api.post('/payments', body, { 'idempotency-key': 'pay-once-1' });
    assert.equal(first.status, 201);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const second = await api.post('/payments', body, { 'idempotency-key': 'pay-once-1' });
    assert.equal(second.status, 201);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.deepEqual(second.body, first.body);
    const after = await api.get(`/tracks/${plan.id}`);
    assert.equal(after.body.data.balance, 750);
  });

  test('the same key with a different body is idempotency_key_reused', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api);
    await api.post('/payments', { trackId: plan.id, amount: 1 }, { 'idempotency-key': 'k-2' });
    const res = await api.post('/payments', { trackId: plan.id, amount: 2 }, { 'idempotency-key': 'k-2' });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'idempotency_key_reused');
  });

  test('concurrent duplicates: one runs, the others are refused as in use or replayed', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 10_000 });
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        api.post('/payments', { trackId: plan.id, amount: 100 }, { 'idempotency-key': 'same' }),
      ),
    );
    for (const r of results) {
      assert.ok(
        r.status === 201 || (r.status === 409 && r.body.error.code === 'idempotency_key_in_use'),
        `${r.status} ${JSON.stringify(r.body)}`,
      );
    }
    const fresh = results.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] !== 'true');
    assert.equal(fresh.length, 1);
    const after = await api.get(`/tracks/${plan.id}`);
    assert.equal(after.body.data.balance, 9_900);
  });

  test('a refused request keeps nothing under its key, wherever the refusal comes from', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 100 });
    // Refused by the service (422 amount_exceeds_balance): the same request later runs again.
    const over = await api.post(
      '/payments',
      { trackId: plan.id, amount: 500 },
      { 'idempotency-key': 'over' },
    );
    assert.equal(over.status, 422);
    assert.equal(over.body.error.code, 'amount_exceeds_balance');
    assert.equal((await api.patch(`/tracks/${plan.id}`, { amount: 1_000 })).status, 200);
    const overAgain = await api.post(
      '/payments',
      { trackId: plan.id, amount: 500 },
      { 'idempotency-key': 'over' },
    );
    assert.equal(overAgain.status, 201, JSON.stringify(overAgain.body));
    assert.equal(overAgain.headers['idempotent-replayed'], undefined);

    // Refused by validation: a corrected retry may reuse the key.
    const invalid = await api.post(
      '/payments',
      { trackId: plan.id, amount: 'x' },
      { 'idempotency-key': 'corrected-retry' },
    );
    assert.equal(invalid.status, 422);
    const fixed = await api.post(
      '/payments',
      { trackId: plan.id, amount: 5 },
      { 'idempotency-key': 'corrected-retry' },
    );
    assert.equal(fixed.status, 201);

    // Refused as not found (another workspace's plan, say), then the right plan: one payment.
    const missing = await api.post(
      '/payments',
      { trackId: 'trk_missing', amount: 5 },
      { 'idempotency-key': 'nf' },
    );
    assert.equal(missing.status, 404);
    const found = await api.post('/payments', { trackId: plan.id, amount: 5 }, { 'idempotency-key': 'nf' });
    assert.equal(found.status, 201);
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 1_000 - 500 - 5 - 5);
  });

  test('the body is compared in canonical form: key order does not matter, values do', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 1_000 });
    const first = await api.post(
      '/payments',
      `{"trackId":"${plan.id}","amount":10,"metadata":{"a":"1","b":"2"}}`,
      { 'idempotency-key': 'ordered' },
    );
    assert.equal(first.status, 201);
    const reordered = await api.post(
      '/payments',
      `{"metadata":{"b":"2","a":"1"},"amount":10,"trackId":"${plan.id}"}`,
      { 'idempotency-key': 'ordered' },
    );
    assert.equal(reordered.status, 201);
    assert.equal(reordered.headers['idempotent-replayed'], 'true');
    assert.deepEqual(reordered.body, first.body);
    const changed = await api.post(
      '/payments',
      `{"metadata":{"b":"2","a":"3"},"amount":10,"trackId":"${plan.id}"}`,
      { 'idempotency-key': 'ordered' },
    );
    assert.equal(changed.status, 422);
    assert.equal(changed.body.error.code, 'idempotency_key_reused');
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 990);
  });

  test("a replay's X-Request-Id header is its body's request_id, the first request's", async () => {
    const { api } = await newWorkspace(t);
    const first = await api.post(
      '/customers',
      { name: 'Ngozi Eze', phone: '+2348031112222' },
      { 'idempotency-key': 'rid', 'x-request-id': 'first-request' },
    );
    assert.equal(first.headers['x-request-id'], 'first-request');
    assert.equal(first.body.request_id, 'first-request');
    const replay = await api.post(
      '/customers',
      { name: 'Ngozi Eze', phone: '+2348031112222' },
      { 'idempotency-key': 'rid', 'x-request-id': 'second-request' },
    );
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body.request_id, 'first-request');
    assert.equal(replay.headers['x-request-id'], 'first-request');
  });

  test('every POST route keeps and replays its response byte for byte', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const plan = await newTrack(api, { customerId: customer.id, amount: 1_000 });
    const payment = await api.post('/payments', { trackId: plan.id, amount: 10 });
    const endpoint = await api.post('/webhooks', { url: 'http://127.0.0.1:9/hooks' });
    const requests: [string, unknown][] = [
      ['/customers', { name: 'Bola Ade', phone: '+2348035556666' }],
      ['/tracks', { customerId: customer.id, title: 'Phone', amount: 500 }],
      ['/payments', { trackId: plan.id, amount: 20 }],
      [`/payments/${payment.body.data.id}/reverse`, { reason: 'cheque bounced' }],
      ['/webhooks', { url: 'http://127.0.0.1:9/other' }],
      [`/webhooks/${endpoint.body.data.id}/test`, undefined],
      ['/account/test-clock/advance', { hours: 1 }],
    ];
    for (const [path, body] of requests) {
      const key = `every-route-${path}`;
      const first = await api.post(path, body, { 'idempotency-key': key });
      assert.ok(
        first.status >= 200 && first.status < 300,
        `${path}: ${first.status} ${JSON.stringify(first.body)}`,
      );
      const second = await api.post(path, body, { 'idempotency-key': key });
      assert.equal(second.status, first.status, path);
      assert.equal(second.headers['idempotent-replayed'], 'true', path);
      assert.deepEqual(second.body, first.body, path);
    }
  });

  test('keys are per workspace and mode, and expire after 24 hours', async () => {
    const a = await newWorkspace(t);
    const b = await newWorkspace(t);
    const ca = await newCustomer(a.api);
    const cb = await newCustomer(b.api);
    const ra = await a.api.post(
      '/tracks',
      { customerId: ca.id, title: 'A', amount: 10 },
      { 'idempotency-key': 'shared' },
    );
    const rb = await b.api.post(
      '/tracks',
      { customerId: cb.id, title: 'A', amount: 10 },
      { 'idempotency-key': 'shared' },
    );
    assert.equal(ra.status, 201);
    assert.equal(rb.status, 201);
    assert.notEqual(ra.body.data.id, rb.body.data.id);

    t.clock.advance(24 * 60 * 60 * 1000 + 1_000);
    const later = await a.api.post(
      '/tracks',
      { customerId: ca.id, title: 'A', amount: 10 },
      { 'idempotency-key': 'shared' },
    );
    assert.equal(later.status, 201);
    assert.equal(later.headers['idempotent-replayed'], undefined);
    assert.notEqual(later.body.data.id, ra.body.data.id);
  });

  test('a malformed key is a validation error naming Idempotency-Key', async () => {
    const { api } = await newWorkspace(t);
    const res = await api.post(
      '/customers',
      { name: 'A', phone: '+2348031234567' },
      { 'idempotency-key': 'x'.repeat(256) },
    );
    assert.equal(res.status, 422);
    assert.ok(res.body.error.details.fields['Idempotency-Key']);
  });
});
