import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

async function ledgerOf(api: Client, trackId: string) {
  const res = await api.get(`/tracks/${trackId}/ledger?limit=100`);
  assert.equal(res.status, 200);
  return res.body.data.items as {
    type: string;
    amount: number;
    balanceAfter: number;
    refs: Record<string, string>;
  }[];
}

describe('POST /payments/{id}/reverse', () => {
  test('restores the balance and the ledger sum, and reactivates a completed plan', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 3_000 });
    const kept = await newPayment(api, plan.id, { amount: 1_000 });
    const bounced = await newPayment(api, plan.id, {
      amount: 2_000,
      method: 'cheque',
      reference: 'CHQ-0042',
    });
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.status, 'completed');

    const res = await api.post(`/payments/${bounced.id}/reverse`, { reason: 'cheque bounced' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.id, bounced.id);
    assert.equal(res.body.data.status, 'reversed');
    assert.equal(res.body.data.reversalReason, 'cheque bounced');
    assert.equal(res.body.data.reversedAt, t.clock.now().toISOString());
    assert.equal(res.body.data.amount, 2_000);

    const after = (await api.get(`/tracks/${plan.id}`)).body.data;
    assert.equal(after.status, 'active');
    assert.equal(after.balance, 2_000);
    assert.equal(after.amountPaid, 1_000);
    const ledger = await ledgerOf(api, plan.id);
    assert.equal(
      ledger.reduce((sum, entry) => sum + entry.amount, 0),
      after.balance,
    );
    const [latest] = ledger;
    assert.equal(latest?.type, 'payment.reversed');
    assert.equal(latest?.amount, 2_000);
    assert.equal(latest?.balanceAfter, 2_000);
    assert.deepEqual(latest?.refs, { paymentId: bounced.id });

    assert.equal((await api.get(`/payments/${bounced.id}`)).body.data.status, 'reversed');
    assert.equal((await api.get(`/payments/${kept.id}`)).body.data.status, 'recorded');
    // The plan takes payments again.
    await newPayment(api, plan.id, { amount: 2_000 });
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.status, 'completed');
  });

  test('emits payment.reversed with the payment as reversed', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 500 });
    const payment = await newPayment(api, plan.id, { amount: 200 });
    await api.post(`/payments/${payment.id}/reverse`, {});
    const events = (
      await t.ctx.db.selectFrom('events').select('data').where('type', '=', 'payment.reversed').execute()
    )
      .map((row) => JSON.parse(row.data))
      .filter((object) => object.id === payment.id);
    assert.equal(events.length, 1);
    assert.equal(events[0].status, 'reversed');
    assert.equal(events[0].reversalReason, null);
  });

  test('reversing twice is invalid_state, at once or one after the other', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 5_000 });
    const payment = await newPayment(api, plan.id, { amount: 1_000 });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api.post(`/payments/${payment.id}/reverse`, {})),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 1);
    for (const refused of results.filter((r) => r.status !== 200)) {
      assert.equal(refused.status, 409);
      assert.deepEqual(refused.body.error.details, { status: 'reversed', action: 'reverse' });
    }
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 5_000);
    const ledger = await ledgerOf(api, plan.id);
    assert.equal(ledger.filter((entry) => entry.type === 'payment.reversed').length, 1);
  });

  test('a payment on an archived plan can still be reversed; the plan stays archived', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 5_000 });
    const payment = await newPayment(api, plan.id, { amount: 1_000 });
    assert.equal((await api.delete(`/tracks/${plan.id}`)).status, 200);
    assert.equal((await api.post(`/payments/${payment.id}/reverse`, {})).status, 200);
    const after = (await api.get(`/tracks/${plan.id}`)).body.data;
    assert.equal(after.status, 'archived');
    assert.equal(after.balance, 5_000);
  });

  test('bad input is refused naming the field, and another workspace gets not_found', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 5_000 });
    const payment = await newPayment(api, plan.id, { amount: 1_000 });
    const tooLong = await api.post(`/payments/${payment.id}/reverse`, { reason: 'x'.repeat(501) });
    assert.equal(tooLong.status, 422);
    assert.ok(tooLong.body.error.details.fields.reason);
    const unknown = await api.post(`/payments/${payment.id}/reverse`, { amount: 5 });
    assert.equal(unknown.status, 422);
    assert.ok(unknown.body.error.details.fields.amount);
    assert.equal((await api.post('/payments/pay_missing/reverse', {})).status, 404);

    const other = await newWorkspace(t);
    assert.equal((await other.api.post(`/payments/${payment.id}/reverse`, {})).status, 404);
    assert.equal((await other.live.post(`/payments/${payment.id}/reverse`, {})).status, 404);
    const readOnly = await newKey(t, workspaceId, { scopes: ['payments:read'] });
    const forbidden = await readOnly.api.post(`/payments/${payment.id}/reverse`, {});
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.error.details.required_scope, 'payments:write');
    assert.equal((await api.get(`/payments/${payment.id}`)).body.data.status, 'recorded');
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 4_000);
  });
});
