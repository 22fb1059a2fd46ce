import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

describe('payments', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  test('recording a payment returns it as recorded and lowers the balance exactly', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 50_000 });
    const res = await api.post('/payments', {
      trackId: plan.id,
      amount: 12_345,
      method: 'bank_transfer',
      paidAt: '2026-11-20T09:30:00+01:00',
      reference: 'GTB-0001',
      metadata: { teller: '7' },
    });
    assert.equal(res.status, 201);
    const payment = res.body.data;
    assert.match(payment.id, /^pay_/);
    assert.equal(payment.amount, 12_345);
    assert.equal(payment.method, 'bank_transfer');
    assert.equal(payment.status, 'recorded');
    assert.equal(payment.trackId, plan.id);
    assert.equal(payment.customerId, plan.customerId);
    assert.equal(payment.currency, plan.currency);
    assert.equal(payment.paidAt, '2026-11-20T08:30:00.000Z');
    assert.equal(payment.reference, 'GTB-0001');
    assert.equal(payment.source, 'api');
    assert.deepEqual(payment.metadata, { teller: '7' });

    const got = await api.get(`/payments/${payment.id}`);
    assert.deepEqual(got.body.data, payment);
    const after = await api.get(`/tracks/${plan.id}`);
    assert.equal(after.body.data.balance, 50_000 - 12_345);
    assert.equal(after.body.data.amountPaid, 12_345);
  });

  test('the last payment completes the plan; a further payment is invalid_state', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 3_000 });
    await newPayment(api, plan.id, { amount: 1_000 });
    await newPayment(api, plan.id, { amount: 2_000 });
    const done = await api.get(`/tracks/${plan.id}`);
    assert.equal(done.body.data.status, 'completed');
    assert.equal(done.body.data.balance, 0);
    const extra = await api.post('/payments', { trackId: plan.id, amount: 1 });
    assert.equal(extra.status, 409);
    assert.equal(extra.body.error.code, 'invalid_state');
    assert.deepEqual(extra.body.error.details, { status: 'completed', action: 'record_payment' });
  });

  test('a payment above the balance is amount_exceeds_balance and changes nothing', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 1_000 });
    await newPayment(api, plan.id, { amount: 400 });
    const res = await api.post('/payments', { trackId: plan.id, amount: 601 });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'amount_exceeds_balance');
    assert.equal(res.body.error.details.balance, 600);
    const after = await api.get(`/tracks/${plan.id}`);
    assert.equal(after.body.data.balance, 600);
    const payments = await api.get(`/payments?trackId=${plan.id}`);
    assert.equal(payments.body.data.items.length, 1);
  });

  test('a reference already used in the workspace is refused, naming reference', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api);
    const other = await newTrack(api);
    await newPayment(api, plan.id, { reference: 'BANK-42' });
    const dup = await api.post('/payments', { trackId: other.id, amount: 10, reference: 'BANK-42' });
    assert.equal(dup.status, 422);
    assert.equal(dup.body.error.code, 'validation_error');
    assert.ok(dup.body.error.details.fields.reference);
    const otherAfter = await api.get(`/tracks/${other.id}`);
    assert.equal(otherAfter.body.data.balance, other.amount);
  });

  test('the same new reference sent concurrently is recorded once', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 1_000 });
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        api.post('/payments', { trackId: plan.id, amount: 10, reference: 'RACE-1' }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.equal(statuses.filter((s) => s === 201).length, 1, JSON.stringify(statuses));
    assert.ok(results.every((r) => r.status === 201 || r.body.error?.details?.fields?.reference));
    const after = await api.get(`/tracks/${plan.id}`);
    assert.equal(after.body.data.balance, 990);
  });

  test('bad input names the field and records nothing', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api);
    const cases: [Record<string, unknown>, string][] = [
      [{ amount: 1.5 }, 'amount'],
      [{ amount: -5 }, 'amount'],
      [{ amount: '5' }, 'amount'],
      [{ method: 'bitcoin' }, 'method'],
      [{ paidAt: 'yesterday' }, 'paidAt'],
      [{ paidAt: '2999-01-01T00:00:00Z' }, 'paidAt'],
      [{ reference: 'x'.repeat(121) }, 'reference'],
      [{ trackId: undefined }, 'trackId'],
      [{ currency: 'USD' }, 'currency'],
    ];
    for (const [override, field] of cases) {
      const res = await api.post('/payments', { trackId: plan.id, amount: 100, ...override });
      assert.equal(
        res.status,
        422,
        `${JSON.stringify(override)} -> ${res.status} ${JSON.stringify(res.body)}`,
      );
      assert.ok(
        res.body.error.details.fields[field],
        `${field} in ${JSON.stringify(res.body.error.details)}`,
      );
    }
    const missing = await api.post('/payments', { trackId: 'trk_missing', amount: 100 });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.details.field, 'trackId');
    const after = await api.get(`/tracks/${plan.id}`);
    assert.equal(after.body.data.balance, plan.amount);
  });

  test('method defaults to other; paidAt defaults to now', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api);
    const res = await api.post('/payments', { trackId: plan.id, amount: 5 });
    assert.equal(res.body.data.method, 'other');
    assert.equal(res.body.data.paidAt, res.body.data.createdAt);
  });

  test('GET /payments/{id} for an unknown id is 404', async () => {
    const { api } = await newWorkspace(t);
    const res = await api.get('/payments/pay_unknown');
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
  });
});
