import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newTrack, newWorkspace } from '../helpers/factories.js';
import { holdWrite } from '../helpers/held-write.js';

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

  test('a payment waiting for another connection to finish its write does not stop the server meanwhile', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 100 });
    // Another connection (the worker thread, the command line) holds the plan, and on SQLite the write lock.
    const writer = await holdWrite(
      t,
      (trx) =>
        trx
          .updateTable('tracks')
          .set({ updated_at: new Date().toISOString() })
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', plan.id)
          .execute(),
      'commit',
    );
    try {
      const payment = api.post('/payments', { trackId: plan.id, amount: 30, method: 'cash' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      // Answered while the payment waits: a wait that slept on the event loop would hold this until it gave up.
      const document = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
      assert.equal(document.statusCode, 200);
      await writer.end();
      const paid = await payment;
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 70);
    } finally {
      await writer.end();
    }
  });

  test('payments answered together: each 201 is already committed, and a refusal or a duplicate among them undoes nothing of the others', async () => {
    const { api } = await newWorkspace(t);
    const plans = [await newTrack(api, { amount: 50 }), await newTrack(api, { amount: 50 })];
    const other = t.database.open();
    try {
      const committed = (id: string) =>
        other.db.selectFrom('payments').select('id').where('id', '=', id).executeTakeFirst();
      const results = await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const plan = plans[i % 2] as { id: string };
          // Every fifth asks more than the plan owes; two share a reference, so one of them is refused.
          const amount = i % 5 === 4 ? 1_000 : 1;
          const reference = i === 10 || i === 12 ? 'SAME-REF' : `R-${i}`;
          const res = await api.post('/payments', { trackId: plan.id, amount, method: 'cash', reference });
          const seen = res.status === 201 ? await committed(res.body.data.id) : undefined;
          return { i, res, seen };
        }),
      );
      for (const { i, res, seen } of results) {
        if (i % 5 === 4) {
          assert.equal(res.status, 422, `payment ${i}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.error.code, 'amount_exceeds_balance');
        } else if (res.status === 201) {
          assert.ok(seen, `payment ${i} was answered 201 before another connection could read it`);
        }
      }
      const sameRef = results.filter(({ i }) => i === 10 || i === 12);
      assert.deepEqual(sameRef.map(({ res }) => res.status).sort(), [201, 422]);
      const duplicate = sameRef.find(({ res }) => res.status === 422)?.res;
      assert.ok(duplicate?.body.error.details.fields.reference, JSON.stringify(duplicate?.body));
      for (const plan of plans) {
        const paid = results.filter(
          ({ i, res }) => res.status === 201 && (plans[i % 2] as { id: string }).id === plan.id,
        ).length;
        const after = await api.get(`/tracks/${plan.id}`);
        assert.equal(after.body.data.amountPaid, paid);
        assert.equal(after.body.data.balance, 50 - paid);
        const stored = await other.db
          .selectFrom('payments')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('track_id', '=', plan.id)
          .executeTakeFirstOrThrow();
        assert.equal(Number(stored.n), paid);
      }
      assert.equal(results.filter(({ res }) => res.status === 201).length, 31);
    } finally {
      await other.close();
    }
  });
});
