import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

interface Entry {
  id: string;
  type: string;
  trackId: string;
  amount: number;
  balanceAfter: number;
  occurredAt: string;
  refs: Record<string, string>;
}

describe('ledger', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  test("each entry's balanceAfter is the running sum, and the sum of a plan's entries is its balance", async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 9_000 });
    const p1 = await newPayment(api, plan.id, { amount: 2_500 });
    await api.patch(`/tracks/${plan.id}`, { amount: 10_000 });
    await newPayment(api, plan.id, { amount: 500 });

    const res = await api.get(`/tracks/${plan.id}/ledger`);
    assert.equal(res.status, 200);
    const entries: Entry[] = [...res.body.data.items].reverse();
    assert.deepEqual(
      entries.map((e) => [e.type, e.amount, e.balanceAfter]),
      [
        ['plan.charged', 9_000, 9_000],
        ['payment.recorded', -2_500, 6_500],
        ['plan.adjusted', 1_000, 7_500],
        ['payment.recorded', -500, 7_000],
      ],
    );
    let running = 0;
    for (const e of entries) {
      running += e.amount;
      assert.equal(e.balanceAfter, running);
    }
    const current = await api.get(`/tracks/${plan.id}`);
    assert.equal(current.body.data.balance, running);
    assert.equal(entries[1]?.refs.paymentId, p1.id);
  });

  test('the workspace ledger lists every plan, filters by type and time, and refuses bad filters', async () => {
    const { api } = await newWorkspace(t);
    const a = await newTrack(api, { amount: 100 });
    const b = await newTrack(api, { amount: 200 });
    await newPayment(api, a.id, { amount: 10, paidAt: '2026-01-15T10:00:00Z' });
    await newPayment(api, b.id, { amount: 20, paidAt: '2026-03-15T10:00:00Z' });

    const all = await api.get('/ledger');
    assert.equal(all.body.data.items.length, 4);
    const payments = await api.get('/ledger?type=payment.recorded');
    assert.equal(payments.body.data.items.length, 2);
    const window = await api.get(
      '/ledger?type=payment.recorded&from=2026-02-01T00:00:00Z&to=2026-04-01T00:00:00Z',
    );
    assert.deepEqual(
      window.body.data.items.map((e: Entry) => e.trackId),
      [b.id],
    );
    const bad = await api.get('/ledger?type=refund.issued');
    assert.equal(bad.status, 422);
    assert.ok(bad.body.error.details.fields.type);
    const badDate = await api.get('/ledger?from=last-week');
    assert.equal(badDate.status, 422);
    assert.ok(badDate.body.error.details.fields.from);
  });

  test('the ledger is append-only: there is no route to change or remove an entry', async () => {
    const { api } = await newWorkspace(t);
    await newTrack(api);
    const entry = (await api.get('/ledger')).body.data.items[0] as Entry;
    for (const method of ['PATCH', 'DELETE', 'PUT'] as const) {
      const res = await api.request(method, `/ledger/${entry.id}`);
      assert.equal(res.status, 404, method);
    }
    const post = await api.post('/ledger', { type: 'plan.charged' });
    assert.equal(post.status, 405);
  });
});
