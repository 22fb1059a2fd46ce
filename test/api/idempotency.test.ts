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

  test('errors from the service are replayed too; validation failures are not kept', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 100 });
    const over = await api.post(
      '/payments',
      { trackId: plan.id, amount: 500 },
      { 'idempotency-key': 'over' },
    );
    assert.equal(over.status, 422);
    const overAgain = await api.post(
      '/payments',
      { trackId: plan.id, amount: 500 },
      { 'idempotency-key': 'over' },
    );
    assert.equal(overAgain.headers['idempotent-replayed'], 'true');
    assert.deepEqual(overAgain.body, over.body);

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
