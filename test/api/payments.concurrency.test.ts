import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newTrack, newWorkspace } from '../helpers/factories.js';

describe('payments under concurrency', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  test('120 concurrent payments of 1 against a plan of 100 record exactly 100 and leave a zero balance', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 100 });
    const results = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        api.post('/payments', { trackId: plan.id, amount: 1, method: 'cash', reference: `C-${i}` }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    assert.equal(created.length, 100);
    assert.equal(refused.length, 20);
    for (const r of refused) {
      assert.ok(
        ['invalid_state', 'amount_exceeds_balance'].includes(r.body.error.code),
        `refused with ${r.status} ${r.body.error?.code}`,
      );
    }

    const after = await api.get(`/tracks/${plan.id}`);
    assert.equal(after.body.data.balance, 0);
    assert.equal(after.body.data.amountPaid, 100);
    assert.equal(after.body.data.status, 'completed');

    let count = 0;
    let cursor: string | null = null;
    do {
      const page = await api.get(`/tracks/${plan.id}/payments?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      count += page.body.data.items.length;
      cursor = page.body.data.next_cursor;
    } while (cursor);
    assert.equal(count, 100);
  });

  test('concurrent payments of different sizes never overdraw and the ledger agrees with the balance', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 1_000 });
    const amounts = Array.from({ length: 60 }, (_, i) => 7 + (i % 13) * 5);
    const results = await Promise.all(
      amounts.map((amount) => api.post('/payments', { trackId: plan.id, amount })),
    );
    const paid = results.filter((r) => r.status === 201).reduce((sum, r) => sum + r.body.data.amount, 0);
    const after = await api.get(`/tracks/${plan.id}`);
    assert.equal(after.body.data.balance, 1_000 - paid);
    assert.ok(after.body.data.balance >= 0);

    const ledger = await api.get(`/tracks/${plan.id}/ledger?limit=100`);
    const sum = ledger.body.data.items.reduce((s: number, e: { amount: number }) => s + e.amount, 0);
    assert.equal(sum, after.body.data.balance);
  });
});
