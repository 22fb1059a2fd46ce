import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

describe('payment plans (tracks)', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  test('create returns an active plan whose balance equals its amount', async () => {
    const { api } = await newWorkspace(t, { currency: 'KES' });
    const customer = await newCustomer(api);
    const res = await api.post('/tracks', {
      customerId: customer.id,
      title: 'Motorbike',
      amount: 250_000,
      installments: 10,
      dueDate: '2027-06-30',
      metadata: { branch: 'Nakuru' },
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.success, true);
    const plan = res.body.data;
    assert.match(plan.id, /^trk_[0-9A-Z]{26}$/);
    assert.deepEqual(
      { ...plan, id: undefined, createdAt: undefined, updatedAt: undefined },
      {
        id: undefined,
        customerId: customer.id,
        title: 'Motorbike',
        amount: 250_000,
        balance: 250_000,
        amountPaid: 0,
        currency: 'KES',
        installments: 10,
        status: 'active',
        dueDate: '2027-06-30',
        metadata: { branch: 'Nakuru' },
        createdAt: undefined,
        updatedAt: undefined,
        archivedAt: null,
      },
    );
    const got = await api.get(`/tracks/${plan.id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.data, plan);
  });

  test('currency is validated against ISO 4217 and amounts must be whole minor units in range', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const cases: [Record<string, unknown>, string][] = [
      [{ currency: 'XYZ' }, 'currency'],
      [{ currency: 'ngn' }, 'currency'],
      [{ amount: 10.5 }, 'amount'],
      [{ amount: '100' }, 'amount'],
      [{ amount: 0 }, 'amount'],
      [{ amount: 1_000_000_000_001 }, 'amount'],
      [{ installments: 0 }, 'installments'],
      [{ installments: 1001 }, 'installments'],
      [{ dueDate: '30/06/2027' }, 'dueDate'],
      [{ title: '' }, 'title'],
      [{ title: ' \t ' }, 'title'],
      [{ colour: 'red' }, 'colour'],
    ];
    for (const [override, field] of cases) {
      const res = await api.post('/tracks', {
        customerId: customer.id,
        title: 'Plan',
        amount: 100,
        ...override,
      });
      assert.equal(res.status, 422, `${JSON.stringify(override)} -> ${res.status}`);
      assert.equal(res.body.error.code, 'validation_error');
      assert.ok(
        res.body.error.details.fields[field],
        `${field} named in ${JSON.stringify(res.body.error.details)}`,
      );
    }
    const list = await api.get('/tracks');
    assert.equal(list.body.data.items.length, 0, 'no refused request created a plan');
  });

  test('a plan without currency takes the workspace default', async () => {
    const { api } = await newWorkspace(t, { currency: 'NGN' });
    const plan = await newTrack(api);
    assert.equal(plan.currency, 'NGN');
  });

  test('an unknown customer is a 404 naming customerId', async () => {
    const { api } = await newWorkspace(t);
    const res = await api.post('/tracks', { customerId: 'cus_nope', title: 'Plan', amount: 100 });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
    assert.equal(res.body.error.details.field, 'customerId');
  });

  test('update changes title, due date and metadata; a new amount is a ledger adjustment', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 10_000 });
    await newPayment(api, plan.id, { amount: 4_000 });

    const renamed = await api.patch(`/tracks/${plan.id}`, {
      title: 'Fridge',
      dueDate: '2027-01-31',
      metadata: { a: 'b' },
    });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.data.title, 'Fridge');
    assert.equal(renamed.body.data.dueDate, '2027-01-31');
    assert.deepEqual(renamed.body.data.metadata, { a: 'b' });

    const raised = await api.patch(`/tracks/${plan.id}`, { amount: 12_000 });
    assert.equal(raised.status, 200);
    assert.equal(raised.body.data.amount, 12_000);
    assert.equal(raised.body.data.balance, 8_000);

    const tooLow = await api.patch(`/tracks/${plan.id}`, { amount: 3_999 });
    assert.equal(tooLow.status, 422);
    assert.ok(tooLow.body.error.details.fields.amount);

    const ledger = await api.get(`/tracks/${plan.id}/ledger`);
    const types = ledger.body.data.items.map((e: { type: string }) => e.type);
    assert.deepEqual(types, ['plan.adjusted', 'payment.recorded', 'plan.charged']);
    const adjusted = ledger.body.data.items[0];
    assert.equal(adjusted.amount, 2_000);
    assert.equal(adjusted.balanceAfter, 8_000);
  });

  test('lowering the amount to what is paid completes the plan; raising it again reopens it', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 10_000 });
    await newPayment(api, plan.id, { amount: 6_000 });
    const lowered = await api.patch(`/tracks/${plan.id}`, { amount: 6_000 });
    assert.equal(lowered.body.data.status, 'completed');
    assert.equal(lowered.body.data.balance, 0);
    const raised = await api.patch(`/tracks/${plan.id}`, { amount: 7_000 });
    assert.equal(raised.body.data.status, 'active');
    assert.equal(raised.body.data.balance, 1_000);
  });

  test('archive answers the archived plan; archived plans refuse updates, payments and a second archive', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api);
    const archived = await api.delete(`/tracks/${plan.id}`);
    assert.equal(archived.status, 200);
    assert.equal(archived.body.data.status, 'archived');
    assert.ok(archived.body.data.archivedAt);

    const again = await api.delete(`/tracks/${plan.id}`);
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'invalid_state');
    assert.deepEqual(again.body.error.details, { status: 'archived', action: 'archive' });

    const patch = await api.patch(`/tracks/${plan.id}`, { title: 'x' });
    assert.equal(patch.status, 409);
    const pay = await api.post('/payments', { trackId: plan.id, amount: 1 });
    assert.equal(pay.status, 409);
    assert.deepEqual(pay.body.error.details, { status: 'archived', action: 'record_payment' });
  });

  test('payments of a plan and 404 for an unknown plan', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api);
    const other = await newTrack(api);
    const mine = await newPayment(api, plan.id, { amount: 100 });
    await newPayment(api, other.id, { amount: 100 });
    const res = await api.get(`/tracks/${plan.id}/payments`);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.items.map((p: { id: string }) => p.id),
      [mine.id],
    );
    for (const path of [
      '/tracks/trk_missing',
      '/tracks/trk_missing/payments',
      '/tracks/trk_missing/ledger',
    ]) {
      const missing = await api.get(path);
      assert.equal(missing.status, 404, path);
      assert.equal(missing.body.error.code, 'not_found');
    }
  });
});
