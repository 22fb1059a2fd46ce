import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import { newId } from '../../src/lib/ids.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newSchedule } from '../helpers/collections.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';

// Settlement quotes: what clears a plan on a day (its balance less the early-settlement discount of its
// schedules), kept so that one payment of exactly that amount can name it and complete the plan.

const NOW = '2028-01-20T12:00:00.000Z';

type Row = Record<string, any>;

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const lagos = () => newWorkspace(t, { timezone: 'Africa/Lagos' });

/**
 * A freezer of ₦450.00 in three monthly instalments of ₦150.00 due 10 Dec, 10 Jan and 10 Feb: on 20 Jan two are
 * due, ₦150.00 is not yet.
 */
async function freezerPlan(api: Client, discount: Row | null = null) {
  const customer = await newCustomer(api, { name: 'Chinedu Okafor' });
  const plan = await newTrack(api, {
    customerId: customer.id,
    amount: 45_000,
    title: 'Freezer',
    installments: 3,
  });
  const schedule = await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'installment_sequence',
    fixed_amount: 15_000,
    start_date: '2027-12-10T09:00:00Z',
    ...(discount ? { early_settlement_discount: discount } : {}),
  });
  return { plan, schedule };
}

async function quote(api: Client, planId: string, asOf?: string) {
  const res = await api.get(`/tracks/${planId}/settlement-quote${asOf ? `?as_of=${asOf}` : ''}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as Row;
}

const plan = async (api: Client, id: string) => (await api.get(`/tracks/${id}`)).body.data as Row;
const payments = async (api: Client, id: string) =>
  (await api.get(`/tracks/${id}/payments`)).body.data.items as Row[];
const obligationsOf = async (api: Client, scheduleId: string) =>
  ((await api.get(`/collection-schedules/${scheduleId}/obligations`)).body.data.items as Row[]).sort((a, b) =>
    a.due_date.localeCompare(b.due_date),
  );

function assertError(res: { status: number; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.error.code, code, JSON.stringify(res.body));
}

describe('settlement quote', () => {
  test('without a discount policy the quote is the balance, valid until the end of the day in the zone', async () => {
    const { api } = await lagos();
    const { plan: p } = await freezerPlan(api);
    const q = await quote(api, p.id);
    assert.match(q.id, /^sq_/);
    assert.deepEqual(
      { ...q, id: undefined },
      {
        id: undefined,
        trackId: p.id,
        asOf: '2028-01-20',
        amount: 45_000,
        discount: 0,
        feesIncluded: 0,
        validUntil: '2028-01-20T23:00:00.000Z',
        currency: 'NGN',
        balance: 45_000,
      },
    );
  });

  test('a percent discount on what is not yet due, in basis points rounded half up; none once all is due', async () => {
    const { api } = await lagos();
    // 3.33% of ₦150.00 is 499.5 kobo: 500.
    const { plan: p, schedule } = await freezerPlan(api, { type: 'percent', value: 3.33 });
    assert.deepEqual(schedule.early_settlement_discount, { type: 'percent', value: 3.33 });
    const q = await quote(api, p.id);
    assert.equal(q.discount, 500);
    assert.equal(q.amount, 44_500);
    // The day before the last instalment falls due it is still ahead; on its due date it is due.
    assert.equal((await quote(api, p.id, '2028-02-09')).discount, 500);
    const onDue = await quote(api, p.id, '2028-02-10');
    assert.equal(onDue.discount, 0);
    assert.equal(onDue.amount, 45_000);
    assert.equal(onDue.validUntil, '2028-02-10T23:00:00.000Z');
  });

  test('a fixed discount is at most what is not yet due; set and cleared by PATCH', async () => {
    const { api } = await lagos();
    const { plan: p, schedule } = await freezerPlan(api, { type: 'fixed', value: 1_000 });
    assert.equal((await quote(api, p.id)).discount, 1_000);
    const patched = await api.patch(`/collection-schedules/${schedule.id}`, {
      early_settlement_discount: { type: 'fixed', value: 20_000 },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual(patched.body.data.early_settlement_discount, { type: 'fixed', value: 20_000 });
    const capped = await quote(api, p.id);
    assert.equal(capped.discount, 15_000);
    assert.equal(capped.amount, 30_000);
    const cleared = await api.patch(`/collection-schedules/${schedule.id}`, {
      early_settlement_discount: null,
    });
    assert.equal(cleared.body.data.early_settlement_discount, null);
    assert.equal((await quote(api, p.id)).discount, 0);
  });

  test("several schedules on a plan: each schedule's discount on its own obligations", async () => {
    const { api } = await lagos();
    const p = await newTrack(api, { amount: 60_000 });
    await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: p.id,
      frequency: 'one_time',
      fixed_amount: 30_000,
      start_date: '2028-03-01T09:00:00Z',
      early_settlement_discount: { type: 'percent', value: 10 },
    });
    await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: p.id,
      frequency: 'one_time',
      fixed_amount: 20_000,
      start_date: '2028-04-01T09:00:00Z',
      early_settlement_discount: { type: 'fixed', value: 500 },
    });
    const q = await quote(api, p.id);
    assert.equal(q.discount, 3_500);
    assert.equal(q.amount, 56_500);
    assert.equal(q.balance, 60_000);
  });

  test('a bad policy is a validation_error naming early_settlement_discount, changing nothing', async () => {
    const { api } = await lagos();
    const { schedule } = await freezerPlan(api);
    for (const bad of [
      { type: 'percent', value: 100.5 },
      { type: 'percent', value: 2.555 },
      { type: 'percent', value: 0 },
      { type: 'fixed', value: 1.5 },
      { type: 'fixed' },
      { type: 'other', value: 5 },
      { type: 'fixed', value: 5, extra: 1 },
    ]) {
      const res = await api.patch(`/collection-schedules/${schedule.id}`, { early_settlement_discount: bad });
      assertError(res, 422, 'validation_error');
      assert.ok(
        Object.keys(res.body.error.details.fields).some((f) => f.startsWith('early_settlement_discount')),
        JSON.stringify(res.body),
      );
    }
    assertError(await api.patch(`/collection-schedules/${schedule.id}`, {}), 422, 'validation_error');
    assert.equal(
      (await api.get(`/collection-schedules/${schedule.id}`)).body.data.early_settlement_discount,
      null,
    );
  });

  test('open fees are shown apart, inside the balance; a payment with the quote closes them too', async () => {
    const { api, workspaceId } = await lagos();
    const p = await newTrack(api, { amount: 60_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: p.id,
      frequency: 'one_time',
      fixed_amount: 30_000,
      start_date: '2028-03-01T09:00:00Z',
      early_settlement_discount: { type: 'fixed', value: 1_000 },
    });
    // A late fee as the fees' sweep leaves it (built apart): an obligation of kind fee within the balance.
    const now = new Date(NOW).toISOString();
    const feeId = newId('obligation', new Date(NOW));
    await t.ctx.db
      .insertInto('obligations')
      .values({
        id: feeId,
        kind: 'fee',
        workspace_id: workspaceId,
        mode: 'test',
        schedule_id: schedule.id,
        track_id: p.id,
        sequence: 1,
        due_date: '2028-01-20',
        amount: 2_000,
        amount_paid: 0,
        currency: 'NGN',
        status: 'pending',
        overdue_at: '2028-01-20T23:00:00.000Z',
        paid_at: null,
        allocations: '[]',
        collect_at: null,
        remind_stage: null,
        remind_at: null,
        checkout_id: null,
        checkout_url: null,
        checkout_provider: null,
        checkout_provider_reference: null,
        checkout_completed_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const q = await quote(api, p.id);
    assert.deepEqual([q.balance, q.discount, q.feesIncluded, q.amount], [60_000, 1_000, 2_000, 59_000]);
    const res = await api.post('/payments', { trackId: p.id, amount: 59_000, settlementQuoteId: q.id });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal((await plan(api, p.id)).status, 'completed');
    // Oldest first: the fee (due 20 Jan), then the instalment; the discount came off the rest of the balance.
    assert.deepEqual(
      (await obligationsOf(api, schedule.id)).map((o) => [
        o.id === feeId ? 'fee' : o.kind,
        o.amount,
        o.status,
      ]),
      [
        ['fee', 2_000, 'paid'],
        ['instalment', 30_000, 'paid'],
      ],
    );
  });

  test('as_of: today up to 366 days ahead; a plan not active or paid off cannot be quoted', async () => {
    const { api } = await lagos();
    const { plan: p } = await freezerPlan(api);
    for (const asOf of ['2028-01-19', '2029-01-21', '2028-13-01', 'tomorrow']) {
      const res = await api.get(`/tracks/${p.id}/settlement-quote?as_of=${asOf}`);
      assertError(res, 422, 'validation_error');
      assert.ok(res.body.error.details.fields.as_of, JSON.stringify(res.body));
    }
    assert.equal((await quote(api, p.id, '2029-01-20')).asOf, '2029-01-20');
    assertError(await api.get('/tracks/trk_nope/settlement-quote'), 404, 'not_found');
    const paid = await api.post('/payments', { trackId: p.id, amount: 45_000 });
    assert.equal(paid.status, 201);
    assertError(await api.get(`/tracks/${p.id}/settlement-quote`), 409, 'invalid_state');
  });
});

describe('paying with a settlement quote', () => {
  test('completes the plan: the discount written off, every obligation closed', async () => {
    const { api } = await lagos();
    const { plan: p, schedule } = await freezerPlan(api, { type: 'percent', value: 10 });
    const q = await quote(api, p.id);
    assert.equal(q.amount, 43_500);
    const res = await api.post('/payments', { trackId: p.id, amount: 43_500, settlementQuoteId: q.id });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const after = await plan(api, p.id);
    assert.equal(after.balance, 0);
    assert.equal(after.status, 'completed');
    const [entry] = (await api.get(`/tracks/${p.id}/ledger?type=plan.settlement_discount`)).body.data.items;
    assert.equal(entry.amount, -1_500);
    assert.equal(entry.balanceAfter, 0);
    assert.deepEqual(
      (await obligationsOf(api, schedule.id)).map((o) => [o.due_date, o.amount, o.amount_paid, o.status]),
      [
        ['2027-12-10', 15_000, 15_000, 'paid'],
        ['2028-01-10', 15_000, 15_000, 'paid'],
        ['2028-02-10', 13_500, 13_500, 'paid'],
      ],
    );
    // The quote is used: a second payment naming it is refused.
    const again = await api.post('/payments', { trackId: p.id, amount: 43_500, settlementQuoteId: q.id });
    assertError(again, 409, 'invalid_state');
  });

  test('a discount of nothing still clears the plan with the payment alone', async () => {
    const { api } = await lagos();
    const { plan: p } = await freezerPlan(api);
    const q = await quote(api, p.id);
    const res = await api.post('/payments', { trackId: p.id, amount: 45_000, settlementQuoteId: q.id });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal((await plan(api, p.id)).status, 'completed');
    assert.equal(
      (await api.get(`/tracks/${p.id}/ledger?type=plan.settlement_discount`)).body.data.items.length,
      0,
    );
  });

  test('wrong amount, another plan, unknown quote, expired, plan changed: refused, nothing changed', async () => {
    const ws = await lagos();
    const { api } = ws;
    const { plan: p } = await freezerPlan(api, { type: 'fixed', value: 1_000 });
    const other = await newTrack(api, { amount: 44_000 });
    const q = await quote(api, p.id);

    const wrong = await api.post('/payments', { trackId: p.id, amount: 45_000, settlementQuoteId: q.id });
    assertError(wrong, 422, 'validation_error');
    assert.ok(wrong.body.error.details.fields.amount);
    assert.equal(wrong.body.error.details.quoteAmount, 44_000);

    const elsewhere = await api.post('/payments', {
      trackId: other.id,
      amount: 44_000,
      settlementQuoteId: q.id,
    });
    assertError(elsewhere, 422, 'validation_error');
    assert.ok(elsewhere.body.error.details.fields.settlementQuoteId);

    const unknown = await api.post('/payments', {
      trackId: p.id,
      amount: 44_000,
      settlementQuoteId: 'sq_nope',
    });
    assertError(unknown, 404, 'not_found');

    // Another payment since the quote: the plan changed.
    assert.equal((await api.post('/payments', { trackId: p.id, amount: 1_000 })).status, 201);
    const changed = await api.post('/payments', { trackId: p.id, amount: 44_000, settlementQuoteId: q.id });
    assertError(changed, 409, 'invalid_state');
    assert.match(changed.body.error.message, /changed since the quote/);

    // A fresh quote, then the day ends.
    const fresh = await quote(api, p.id);
    assert.equal(fresh.amount, 43_000);
    const advanced = await api.post('/account/test-clock/advance', { days: 1 });
    assert.ok(advanced.status < 300, JSON.stringify(advanced.body));
    const expired = await api.post('/payments', {
      trackId: p.id,
      amount: 43_000,
      settlementQuoteId: fresh.id,
    });
    assertError(expired, 409, 'invalid_state');
    assert.match(expired.body.error.message, /expired/);

    assert.equal((await plan(api, p.id)).balance, 44_000);
    assert.equal((await payments(api, p.id)).length, 1);
    assert.equal((await plan(api, other.id)).balance, 44_000);
    assert.equal(
      (await api.get(`/tracks/${p.id}/ledger?type=plan.settlement_discount`)).body.data.items.length,
      0,
    );
  });

  test('two payments with the same quote at once: exactly one wins', async () => {
    const { api } = await lagos();
    const { plan: p } = await freezerPlan(api, { type: 'percent', value: 10 });
    const q = await quote(api, p.id);
    const results = await Promise.all(
      [1, 2, 3].map(() => api.post('/payments', { trackId: p.id, amount: 43_500, settlementQuoteId: q.id })),
    );
    assert.deepEqual(
      results.map((r) => r.status).sort(),
      [201, 409, 409],
      JSON.stringify(results.map((r) => r.body)),
    );
    const after = await plan(api, p.id);
    assert.equal(after.balance, 0);
    assert.equal(after.amountPaid, 43_500);
    assert.equal((await payments(api, p.id)).length, 1);
    assert.equal(
      (await api.get(`/tracks/${p.id}/ledger?type=plan.settlement_discount`)).body.data.items.length,
      1,
    );
  });

  test('a quote payment racing an ordinary payment: one of them wins, the balance exact', async () => {
    const { api } = await lagos();
    const { plan: p } = await freezerPlan(api, { type: 'percent', value: 10 });
    const q = await quote(api, p.id);
    const [settle, ordinary] = await Promise.all([
      api.post('/payments', { trackId: p.id, amount: 43_500, settlementQuoteId: q.id }),
      api.post('/payments', { trackId: p.id, amount: 5_000 }),
    ]);
    const after = await plan(api, p.id);
    if (settle.status === 201) {
      assertError(ordinary, 409, 'invalid_state');
      assert.equal(after.balance, 0);
      assert.equal(after.status, 'completed');
    } else {
      assertError(settle, 409, 'invalid_state');
      assert.equal(ordinary.status, 201);
      assert.equal(after.balance, 40_000);
    }
    assert.equal((await payments(api, p.id)).length, 1);
  });

  test('an idempotency key replays the settling payment', async () => {
    const { api } = await lagos();
    const { plan: p } = await freezerPlan(api, { type: 'fixed', value: 2_000 });
    const q = await quote(api, p.id);
    const body = { trackId: p.id, amount: 43_000, settlementQuoteId: q.id };
    const first = await api.post('/payments', body, { 'idempotency-key': 'settle-1' });
    const second = await api.post('/payments', body, { 'idempotency-key': 'settle-1' });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(second.status, 201, JSON.stringify(second.body));
    assert.equal(second.body.data.id, first.body.data.id);
    assert.equal((await payments(api, p.id)).length, 1);
  });
});
