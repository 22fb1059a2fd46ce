import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { approvedMandate, newSchedule, obligationsOf, threeMonthlyDebits } from '../helpers/collections.js';
import { newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

// Disputes: on a plan, an obligation or a payment; while open they hold back reminders and attempts on what
// they cover; resolved rejected (chasing resumes) or accepted with an adjustment, a write-off or a reversal.

const NOW = '2028-01-20T12:00:00.000Z';

type Row = Record<string, any>;

/** A plan of ₦900.00 in three monthly instalments of ₦300.00 due 25 Jan, 25 Feb and 25 Mar 2028. */
const threeInstalments = (api: Client) =>
  threeMonthlyDebits(api, 30_000, 'manual', { email: 'ada@example.com' });

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

async function planOf(api: Client, id: string): Promise<Row> {
  return (await api.get(`/tracks/${id}`)).body.data;
}

async function dispute(api: Client, body: Row): Promise<Row> {
  const res = await api.post('/disputes', body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

async function eventsOf(api: Client, type: string): Promise<Row[]> {
  return (await api.get(`/events?limit=100&type=${type}`)).body.data.items;
}

async function attemptsOf(api: Client, scheduleId: string): Promise<Row[]> {
  const res = await api.get(`/collection-attempts?schedule_id=${scheduleId}&limit=100`);
  return [...res.body.data.items].reverse();
}

async function reminderOf(api: Client, id: string): Promise<Row> {
  const items = (await api.get('/reminders?limit=100')).body.data.items as Row[];
  return items.find((r) => r.id === id) as Row;
}

const advanceTo = (api: Client, to: string) => api.post('/account/test-clock/advance', { to });

/** balance = amount - amountPaid, and the ledger sums to it. */
async function assertBooks(api: Client, id: string) {
  const plan = await planOf(api, id);
  assert.equal(plan.balance, plan.amount - plan.amountPaid);
  const ledger = (await api.get(`/tracks/${id}/ledger?limit=100`)).body.data.items as Row[];
  assert.equal(
    ledger.reduce((s, e) => s + e.amount, 0),
    plan.balance,
  );
  return plan;
}

describe('POST /disputes', () => {
  test('on a plan, an obligation and a payment: the plan is stored for each, camelCase fields, event dispute.created', async () => {
    const { api } = await newWorkspace(t);
    const { customer, plan, schedule } = await threeInstalments(api);
    const [first] = await obligationsOf(api, schedule.id);
    const payment = await newPayment(api, plan.id, { amount: 5_000 });

    const onPlan = await dispute(api, { trackId: plan.id, reason: 'wrong_amount', note: 'Agreed ₦800 only' });
    assert.match(onPlan.id, /^dsp_/);
    assert.deepEqual(onPlan, {
      id: onPlan.id,
      trackId: plan.id,
      obligationId: null,
      paymentId: null,
      customerId: customer.id,
      reason: 'wrong_amount',
      note: 'Agreed ₦800 only',
      status: 'open',
      resolution: null,
      createdAt: NOW,
      resolvedAt: null,
    });
    const onObligation = await dispute(api, { obligationId: first?.id, reason: 'not_received' });
    assert.equal(onObligation.trackId, plan.id);
    assert.equal(onObligation.obligationId, first?.id);
    assert.equal(onObligation.customerId, customer.id);
    assert.equal(onObligation.note, null);
    const onPayment = await dispute(api, { paymentId: payment.id, reason: 'already_paid' });
    assert.equal(onPayment.trackId, plan.id);
    assert.equal(onPayment.paymentId, payment.id);

    const created = await eventsOf(api, 'dispute.created');
    assert.deepEqual(
      created.map((e) => e.data.object.id).sort(),
      [onPlan.id, onObligation.id, onPayment.id].sort(),
    );
    assert.deepEqual((await api.get(`/disputes/${onPlan.id}`)).body.data, onPlan);
    const listed = await api.get(`/disputes?trackId=${plan.id}&status=open&limit=2`);
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.data.items.map((d: Row) => d.id),
      [onPayment.id, onObligation.id],
    );
    assert.ok(listed.body.data.has_more ?? listed.body.data.hasMore ?? listed.body.data.next_cursor);
    assert.equal((await api.get('/disputes?status=accepted')).body.data.items.length, 0);
  });

  test('refusals: targets not exactly one, unknown ids, a second open dispute, a closed obligation, a reversed payment', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const { plan, schedule } = await threeInstalments(api);
    const [first] = await obligationsOf(api, schedule.id);

    const cases: [Row, number, string][] = [
      [{ reason: 'other' }, 422, 'trackId'],
      [{ trackId: plan.id, obligationId: first?.id, reason: 'other' }, 422, 'obligationId'],
      [{ trackId: plan.id, reason: 'lost' }, 422, 'reason'],
      [{ trackId: plan.id }, 422, 'reason'],
      [{ trackId: plan.id, reason: 'other', note: '' }, 422, 'note'],
      [{ trackId: plan.id, reason: 'other', note: 'x'.repeat(501) }, 422, 'note'],
      [{ trackId: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C', reason: 'other' }, 404, 'trackId'],
      [{ obligationId: 'obl_01JD7Z6P4S9T2V5W8X0Y2Z4B6C', reason: 'other' }, 404, 'obligationId'],
      [{ paymentId: 'pay_01JD7Z6P4S9T2V5W8X0Y2Z4B6C', reason: 'other' }, 404, 'paymentId'],
    ];
    for (const [body, status, field] of cases) {
      const res = await api.post('/disputes', body);
      assert.equal(res.status, status, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      if (status === 422)
        assert.ok(field in res.body.error.details.fields, `${JSON.stringify(body)} names ${field}`);
      else assert.equal(res.body.error.details.field, field);
    }

    const open = await dispute(api, { trackId: plan.id, reason: 'other' });
    const second = await api.post('/disputes', { trackId: plan.id, reason: 'wrong_amount' });
    assert.equal(second.status, 409);
    assert.equal(second.body.error.code, 'invalid_state');
    assert.equal(second.body.error.details.disputeId, open.id);

    const paid = await newTrack(api, { amount: 1_000 });
    const paidSchedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: paid.id,
      frequency: 'one_time',
      fixed_amount: 1_000,
      start_date: '2028-01-25T09:00:00Z',
      collection_method: 'manual',
    });
    const payment = await newPayment(api, paid.id, { amount: 1_000 });
    const [paidObligation] = await obligationsOf(api, paidSchedule.id);
    assert.equal(paidObligation?.status, 'paid');
    const onPaid = await api.post('/disputes', { obligationId: paidObligation?.id, reason: 'other' });
    assert.equal(onPaid.status, 409);
    assert.equal(onPaid.body.error.code, 'invalid_state');
    assert.equal((await api.post(`/payments/${payment.id}/reverse`, {})).status, 200);
    const onReversed = await api.post('/disputes', { paymentId: payment.id, reason: 'other' });
    assert.equal(onReversed.status, 409);

    // A key that may only read plans may not dispute.
    const reader = await newKey(t, workspaceId, { scopes: ['tracks:read'] });
    const refused = await reader.api.post('/disputes', { trackId: plan.id, reason: 'other' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.details.required_scope, 'tracks:write');
    assert.equal((await reader.api.get(`/disputes/${open.id}`)).status, 200);
    assert.equal((await api.get('/disputes')).body.data.items.length, 1);
  });

  test('two disputes on one target at once: one stands', async () => {
    const { api } = await newWorkspace(t);
    const { schedule } = await threeInstalments(api);
    const [first] = await obligationsOf(api, schedule.id);
    const results = await Promise.all(
      [0, 1, 2].map(() => api.post('/disputes', { obligationId: first?.id, reason: 'other' })),
    );
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409]);
    assert.equal((await api.get('/disputes?status=open')).body.data.items.length, 1);
  });
});

describe('an open dispute holds back chasing', () => {
  test('a reminder on a disputed obligation is skipped dispute_open; after rejection one goes', async () => {
    const { api } = await newWorkspace(t);
    const { schedule } = await threeInstalments(api);
    const [first] = await obligationsOf(api, schedule.id);
    const open = await dispute(api, { obligationId: first?.id, reason: 'not_received' });

    const queued = await api.post('/reminders', { obligationId: first?.id, message: 'Please pay' });
    assert.equal(queued.status, 202, JSON.stringify(queued.body));
    const held = queued.body.data;
    await api.post('/reminders/send', { reminderIds: [held.id] });
    await t.worker.drain();
    const skipped = await reminderOf(api, held.id);
    assert.equal(skipped.status, 'skipped');
    assert.equal(skipped.skipReason, 'dispute_open');

    const rejected = await api.post(`/disputes/${open.id}/resolve`, {
      outcome: 'rejected',
      note: 'Delivered 3 Jan',
    });
    assert.equal(rejected.status, 200, JSON.stringify(rejected.body));
    assert.equal(rejected.body.data.status, 'rejected');
    assert.deepEqual(rejected.body.data.resolution, {
      outcome: 'rejected',
      action: null,
      note: 'Delivered 3 Jan',
    });
    assert.equal(rejected.body.data.resolvedAt, NOW);
    assert.equal((await eventsOf(api, 'dispute.rejected')).length, 1);

    const goes = (await api.post('/reminders', { obligationId: first?.id, message: 'Please pay' })).body.data;
    await api.post('/reminders/send', { reminderIds: [goes.id] });
    await t.worker.drain();
    assert.equal((await reminderOf(api, goes.id)).status, 'sent');
  });

  test('an auto_debit attempt is blocked dispute_open while a plan dispute is open, and charges once it is rejected', async () => {
    const { api } = await newWorkspace(t);
    const { plan, schedule } = await threeMonthlyDebits(api, 30_000);
    await approvedMandate(t, api, schedule.id);
    const open = await dispute(api, { trackId: plan.id, reason: 'goods_returned' });

    await advanceTo(api, '2028-01-25T08:00:00Z');
    const [blocked] = await attemptsOf(api, schedule.id);
    assert.equal(blocked?.status, 'blocked');
    assert.equal(blocked?.blocked_reason, 'dispute_open');
    assert.equal((await planOf(api, plan.id)).balance, 90_000);

    assert.equal((await api.post(`/disputes/${open.id}/resolve`, { outcome: 'rejected' })).status, 200);
    await api.post('/account/test-clock/advance', { hours: 1 });
    const [charged] = await attemptsOf(api, schedule.id);
    assert.equal(charged?.status, 'succeeded');
    assert.equal((await planOf(api, plan.id)).balance, 60_000);
  });
});

describe('POST /disputes/{id}/resolve', () => {
  test('accepted with adjust lowers the plan by the amount (plan.adjusted), trimming the latest obligation', async () => {
    const { api } = await newWorkspace(t);
    const { plan, schedule } = await threeInstalments(api);
    const open = await dispute(api, { trackId: plan.id, reason: 'wrong_amount' });
    const res = await api.post(`/disputes/${open.id}/resolve`, {
      outcome: 'accepted',
      action: { type: 'adjust', amount: 10_000 },
      note: 'Price was ₦800',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, 'accepted');
    assert.deepEqual(res.body.data.resolution, {
      outcome: 'accepted',
      action: { type: 'adjust', amount: 10_000, writeOffId: null, paymentId: null },
      note: 'Price was ₦800',
    });
    const after = await assertBooks(api, plan.id);
    assert.equal(after.amount, 80_000);
    assert.equal(after.balance, 80_000);
    assert.deepEqual(
      (await obligationsOf(api, schedule.id)).map((o) => o.amount),
      [30_000, 30_000, 20_000],
    );
    const [accepted] = await eventsOf(api, 'dispute.accepted');
    assert.deepEqual(accepted?.data.object, res.body.data);
  });

  test('accepted with write_off on an obligation dispute writes off that obligation, whatever its due date', async () => {
    const { api } = await newWorkspace(t);
    const { plan, schedule } = await threeInstalments(api);
    const [first] = await obligationsOf(api, schedule.id);
    await newPayment(api, plan.id, { amount: 10_000 });
    const open = await dispute(api, { obligationId: first?.id, reason: 'not_received' });
    const res = await api.post(`/disputes/${open.id}/resolve`, {
      outcome: 'accepted',
      action: { type: 'write_off' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const action = res.body.data.resolution.action;
    assert.equal(action.type, 'write_off');
    assert.equal(action.amount, 20_000);
    assert.match(action.writeOffId, /^wof_/);
    assert.deepEqual(
      (await obligationsOf(api, schedule.id)).map((o) => [o.amount, o.amount_paid, o.status]),
      [
        [30_000, 10_000, 'written_off'],
        [30_000, 0, 'pending'],
        [30_000, 0, 'pending'],
      ],
    );
    const after = await assertBooks(api, plan.id);
    assert.equal(after.balance, 60_000);
    assert.equal(after.amount, 70_000);
    const ledger = (await api.get(`/tracks/${plan.id}/ledger?type=plan.written_off`)).body.data.items;
    assert.equal(ledger[0].refs.reason, `dispute ${open.id}: not_received`);
    assert.equal(ledger[0].refs.writeOffId, action.writeOffId);
  });

  test('accepted with write_off on a plan dispute writes off the balance, or the amount given', async () => {
    const { api } = await newWorkspace(t);
    const { plan } = await threeInstalments(api);
    const open = await dispute(api, { trackId: plan.id, reason: 'goods_returned' });
    const res = await api.post(`/disputes/${open.id}/resolve`, {
      outcome: 'accepted',
      action: { type: 'write_off', amount: 25_000 },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((await assertBooks(api, plan.id)).balance, 65_000);

    const other = (await threeInstalments(api)).plan;
    const whole = await dispute(api, { trackId: other.id, reason: 'goods_returned' });
    const all = await api.post(`/disputes/${whole.id}/resolve`, {
      outcome: 'accepted',
      action: { type: 'write_off' },
    });
    assert.equal(all.body.data.resolution.action.amount, 90_000);
    const done = await assertBooks(api, other.id);
    assert.equal(done.balance, 0);
    assert.equal(done.status, 'completed');
  });

  test('accepted with reverse reverses the disputed payment: its amount is owed again', async () => {
    const { api } = await newWorkspace(t);
    const { plan, schedule } = await threeInstalments(api);
    const payment = await newPayment(api, plan.id, { amount: 30_000 });
    const open = await dispute(api, { paymentId: payment.id, reason: 'already_paid' });
    const res = await api.post(`/disputes/${open.id}/resolve`, {
      outcome: 'accepted',
      action: { type: 'reverse' },
      note: 'Cheque bounced',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data.resolution.action, {
      type: 'reverse',
      amount: 30_000,
      writeOffId: null,
      paymentId: payment.id,
    });
    const reversed = (await api.get(`/payments/${payment.id}`)).body.data;
    assert.equal(reversed.status, 'reversed');
    const after = await assertBooks(api, plan.id);
    assert.equal(after.balance, 90_000);
    assert.equal(after.amountPaid, 0);
    assert.deepEqual(
      (await obligationsOf(api, schedule.id)).map((o) => o.amount_paid),
      [0, 0, 0],
    );
  });

  test('accepted with no action changes no money', async () => {
    const { api } = await newWorkspace(t);
    const { plan } = await threeInstalments(api);
    const open = await dispute(api, { trackId: plan.id, reason: 'other' });
    const res = await api.post(`/disputes/${open.id}/resolve`, { outcome: 'accepted' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.resolution, { outcome: 'accepted', action: null, note: null });
    assert.equal((await assertBooks(api, plan.id)).balance, 90_000);
  });

  test('refusals name the field and change nothing; only an open dispute resolves', async () => {
    const { api } = await newWorkspace(t);
    const { plan, schedule } = await threeInstalments(api);
    const [first] = await obligationsOf(api, schedule.id);
    const onPlan = await dispute(api, { trackId: plan.id, reason: 'other' });
    const onObligation = await dispute(api, { obligationId: first?.id, reason: 'other' });
    const cases: [string, Row, string][] = [
      [onPlan.id, { outcome: 'rejected', action: { type: 'adjust', amount: 1 } }, 'action'],
      [onPlan.id, { outcome: 'maybe' }, 'outcome'],
      [onPlan.id, {}, 'outcome'],
      [onPlan.id, { outcome: 'accepted', action: { type: 'reverse' } }, 'action.type'],
      [onPlan.id, { outcome: 'accepted', action: { type: 'adjust' } }, 'action.amount'],
      [onPlan.id, { outcome: 'accepted', action: { type: 'adjust', amount: 90_001 } }, 'action.amount'],
      [onPlan.id, { outcome: 'accepted', action: { type: 'write_off', amount: 90_001 } }, 'action.amount'],
      [onPlan.id, { outcome: 'accepted', action: { type: 'write_off', amount: 0 } }, 'action.amount'],
      [onPlan.id, { outcome: 'accepted', action: { type: 'refund' } }, 'action.type'],
      [onObligation.id, { outcome: 'accepted', action: { type: 'reverse' } }, 'action.type'],
    ];
    for (const [id, body, field] of cases) {
      const res = await api.post(`/disputes/${id}/resolve`, body);
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      const fields = Object.keys(res.body.error.details.fields);
      assert.ok(
        fields.some((f) => f === field || f.replace('/', '.') === field || f.endsWith(field)),
        `${JSON.stringify(body)} names ${field}: ${fields}`,
      );
    }
    assert.equal((await api.get(`/disputes/${onPlan.id}`)).body.data.status, 'open');
    assert.equal((await assertBooks(api, plan.id)).balance, 90_000);
    const missing = await api.post('/disputes/dsp_01JD7ZJ5L7N9Q1S3U5W7Y9A1C3/resolve', {
      outcome: 'rejected',
    });
    assert.equal(missing.status, 404);

    assert.equal((await api.post(`/disputes/${onPlan.id}/resolve`, { outcome: 'rejected' })).status, 200);
    const again = await api.post(`/disputes/${onPlan.id}/resolve`, { outcome: 'accepted' });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'invalid_state');
  });

  test('two resolves racing: one wins, the money moves once', async () => {
    const { api } = await newWorkspace(t);
    const { plan } = await threeInstalments(api);
    const open = await dispute(api, { trackId: plan.id, reason: 'wrong_amount' });
    const results = await Promise.all([
      api.post(`/disputes/${open.id}/resolve`, {
        outcome: 'accepted',
        action: { type: 'adjust', amount: 10_000 },
      }),
      api.post(`/disputes/${open.id}/resolve`, {
        outcome: 'accepted',
        action: { type: 'write_off', amount: 20_000 },
      }),
      api.post(`/disputes/${open.id}/resolve`, { outcome: 'rejected' }),
    ]);
    const statuses = results.map((r) => r.status);
    assert.deepEqual([...statuses].sort(), [200, 409, 409], JSON.stringify(results.map((r) => r.body)));
    const winner = results[statuses.indexOf(200)]?.body.data;
    const expected =
      { adjust: 80_000, write_off: 70_000 }[winner.resolution.action?.type as string] ?? 90_000;
    assert.equal((await assertBooks(api, plan.id)).balance, expected);
    assert.equal(
      (await eventsOf(api, 'dispute.accepted')).length + (await eventsOf(api, 'dispute.rejected')).length,
      1,
    );
  });
});
