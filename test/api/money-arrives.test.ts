import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runSweepsNow } from '../../src/jobs/sweeps.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp, withCharge } from '../helpers/app.js';
import { approvedMandate, newSchedule } from '../helpers/collections.js';
import { newCustomer, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';
import { notification, notify, type ProviderSetting, providerSetting } from '../helpers/providers.js';

// Money a provider reports is always recorded (issue 21, points 1, 4 and 7, and the reference and signature
// items of point 8): applied where it can be, else kept as the customer's credit, never refused or dropped.

const NOW = '2028-01-20T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

/** A plan with a gatewayB virtual account (one obligation of the whole amount), and the provider's setting. */
async function virtualAccountPlan(
  api: Client,
  workspaceId: string,
  amount: number,
  options: { customerId?: string; setting?: ProviderSetting } = {},
) {
  const setting = options.setting ?? (await providerSetting(t, workspaceId, 'gatewayB'));
  const { customerId } = options;
  const plan = await newTrack(api, { amount, ...(customerId ? { customerId } : {}) });
  const schedule = await api.post('/collection-schedules', {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'one_time',
    fixed_amount: amount,
    start_date: '2028-01-25T09:00:00Z',
    collection_method: 'gatewayB_virtual_account',
  });
  assert.equal(schedule.status, 201, JSON.stringify(schedule.body));
  return { setting, plan, account: schedule.body.data.virtual_account.number as string };
}

/** A transfer to an account, an hour before the test's time. */
const transfer = (account: string, amount: number, overrides: Record<string, unknown> = {}) =>
  notification(account, {
    type: 'transfer.received',
    amount,
    occurred_at: '2028-01-20T11:00:00Z',
    ...overrides,
  });

async function received(setting: ProviderSetting, body: Record<string, unknown>) {
  const res = await notify(t, setting, body);
  assert.equal(res.statusCode, 200, res.body);
  return JSON.parse(res.body).data;
}

async function creditOf(api: Client, customerId: string) {
  const customer = (await api.get(`/customers/${customerId}`)).body.data;
  return Object.fromEntries(customer.balances.map((b: any) => [b.currency, b.credit]));
}

async function eventTypes(api: Client) {
  return (await api.get('/events?limit=100')).body.data.items.map((e: any) => e.type) as string[];
}

/** What the workspace's figures say money is: collected (summary), and the sum of every recorded payment. */
async function moneyIn(api: Client) {
  const summary = (await api.get('/reports/summary')).body.data;
  const collected = Object.fromEntries(summary.currencies.map((c: any) => [c.currency, c.collected]));
  const payments = (await api.get('/payments?status=recorded&limit=100')).body.data.items;
  const recorded: Record<string, number> = {};
  for (const p of payments) recorded[p.currency] = (recorded[p.currency] ?? 0) + p.amount;
  return { collected, recorded };
}

async function planLedgerSum(api: Client, trackId: string) {
  const items = (await api.get(`/tracks/${trackId}/ledger?limit=100`)).body.data.items;
  return items.reduce((sum: number, e: any) => sum + e.amount, 0);
}

describe('money a provider reports is always recorded', () => {
  test('a transfer one minor unit over the balance: the plan takes its balance, the excess is credit, evented', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const { setting, plan, account } = await virtualAccountPlan(api, workspaceId, 50_000);
    const receipt = await received(setting, transfer(account, 50_001));
    assert.equal(receipt.outcome, 'recorded');
    const track = (await api.get(`/tracks/${plan.id}`)).body.data;
    assert.deepEqual([track.balance, track.status], [0, 'completed']);
    const onPlan = (await api.get(`/tracks/${plan.id}/payments`)).body.data.items;
    assert.deepEqual(
      onPlan.map((p: any) => p.amount),
      [50_000],
    );
    const [credit] = (await api.get('/payments?unapplied=true')).body.data.items;
    assert.deepEqual(
      [credit.amount, credit.trackId, credit.customerId, credit.unappliedReason, credit.splitFrom],
      [1, null, plan.customerId, 'overpayment', onPlan[0].id],
    );
    assert.deepEqual(await creditOf(api, plan.customerId), { NGN: 1 });
    assert.ok((await eventTypes(api)).includes('payment.unapplied'));
    assert.equal(await planLedgerSum(api, plan.id), 0);
    assert.deepEqual(await moneyIn(api), { collected: { NGN: 50_001 }, recorded: { NGN: 50_001 } });
  });

  test('after the plan is completed or archived, or in another currency, the whole transfer is unapplied credit', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const { setting, plan, account } = await virtualAccountPlan(api, workspaceId, 50_000);
    await newPayment(api, plan.id, { amount: 50_000 });
    const closed = await received(setting, transfer(account, 7_000));
    assert.deepEqual([closed.outcome, closed.reason], ['unapplied', 'plan_closed']);
    const dollars = await received(setting, transfer(account, 300, { currency: 'USD' }));
    assert.deepEqual([dollars.outcome, dollars.reason], ['unapplied', 'currency_mismatch']);
    const archived = await virtualAccountPlan(api, workspaceId, 10_000, { setting });
    assert.equal((await api.delete(`/tracks/${archived.plan.id}`)).status, 200);
    const late = await received(archived.setting, transfer(archived.account, 4_000));
    assert.deepEqual([late.outcome, late.reason], ['unapplied', 'plan_closed']);

    const payment = (await api.get(`/payments/${closed.payment_id}`)).body.data;
    assert.deepEqual(
      [payment.trackId, payment.customerId, payment.amount, payment.unapplied, payment.metadata.planId],
      [null, plan.customerId, 7_000, true, plan.id],
    );
    assert.deepEqual(await creditOf(api, plan.customerId), { NGN: 7_000, USD: 300 });
    assert.deepEqual(await creditOf(api, archived.plan.customerId), { NGN: 4_000 });
    const ledger = (await api.get(`/customers/${plan.customerId}/ledger?limit=100`)).body.data.items;
    assert.ok(ledger.some((e: any) => e.refs.paymentId === closed.payment_id && e.amount === -7_000));
    assert.deepEqual(await moneyIn(api), {
      collected: { NGN: 61_000, USD: 300 },
      recorded: { NGN: 61_000, USD: 300 },
    });
  });

  test('a transfer to the virtual account of a schedule without a plan pays its obligation', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const setting = await providerSetting(t, workspaceId, 'gatewayB');
    const schedule = await newSchedule(api, {
      target_type: 'generic_collection',
      target_id: null,
      frequency: 'monthly',
      fixed_amount: 15_000,
      start_date: '2028-01-25T09:00:00Z',
      end_date: '2028-02-25T09:00:00Z',
      collection_method: 'gatewayB_virtual_account',
    });
    const receipt = await received(setting, transfer(schedule.virtual_account.number, 20_000));
    assert.equal(receipt.outcome, 'recorded');
    const payment = (await api.get(`/payments/${receipt.payment_id}`)).body.data;
    assert.deepEqual([payment.trackId, payment.amount, payment.unapplied], [null, 20_000, false]);
    const obligations = (await api.get(`/collection-schedules/${schedule.id}/obligations`)).body.data.items;
    assert.deepEqual(
      [...obligations].reverse().map((o: any) => [o.status, o.amount_paid]),
      [
        ['paid', 15_000],
        ['partially_paid', 5_000],
      ],
    );
    // More than the schedule asks: the excess is unapplied.
    const more = await received(setting, transfer(schedule.virtual_account.number, 25_000));
    assert.equal(more.outcome, 'recorded');
    assert.match(more.reason, /overpayment: 15000/);
  });

  test('POST /payments/{id}/apply puts credit on a plan; beyond its balance the rest stays credit, visibly', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const { setting, plan, account } = await virtualAccountPlan(api, workspaceId, 10_000, {
      customerId: customer.id,
    });
    await newPayment(api, plan.id, { amount: 10_000 });
    const credit = (await received(setting, transfer(account, 5_000))).payment_id;
    const before = await moneyIn(api);

    const small = await newTrack(api, { customerId: customer.id, amount: 3_000 });
    const split = await api.post(`/payments/${credit}/apply`, { trackId: small.id });
    assert.equal(split.status, 200, JSON.stringify(split.body));
    assert.deepEqual(
      [split.body.data.trackId, split.body.data.amount, split.body.data.splitFrom, split.body.data.unapplied],
      [small.id, 3_000, credit, false],
    );
    assert.equal(split.body.data.metadata.unapplied, undefined, 'no note says it is credit any more');
    assert.equal((await api.get(`/tracks/${small.id}`)).body.data.status, 'completed');
    const original = (await api.get(`/payments/${credit}`)).body.data;
    assert.equal(original.status, 'split');
    assert.equal(original.splitInto[0], split.body.data.id);
    const rest = (await api.get(`/payments/${original.splitInto[1]}`)).body.data;
    assert.deepEqual([rest.amount, rest.unapplied, rest.splitFrom], [2_000, true, credit]);
    assert.deepEqual(await creditOf(api, customer.id), { NGN: 2_000 });
    assert.deepEqual(await moneyIn(api), before, 'applying moves money, it makes none');
    assert.ok((await eventTypes(api)).includes('payment.applied'));

    const big = await newTrack(api, { customerId: customer.id, amount: 9_000 });
    const whole = await api.post(`/payments/${rest.id}/apply`, { trackId: big.id });
    assert.equal(whole.status, 200, JSON.stringify(whole.body));
    assert.deepEqual([whole.body.data.id, whole.body.data.trackId], [rest.id, big.id]);
    assert.deepEqual(
      [whole.body.data.unappliedReason, whole.body.data.metadata.unapplied],
      ['overpayment', undefined],
    );
    assert.equal((await api.get(`/tracks/${big.id}`)).body.data.balance, 7_000);
    assert.equal(await planLedgerSum(api, big.id), 7_000);
    assert.deepEqual(await creditOf(api, customer.id), { NGN: 0 });
    assert.deepEqual(await moneyIn(api), before);
    // Once applied it is an ordinary payment: reversing it gives the plan its balance back.
    assert.equal((await api.post(`/payments/${rest.id}/reverse`, {})).status, 200);
    assert.equal((await api.get(`/tracks/${big.id}`)).body.data.balance, 9_000);
  });

  test('apply refuses what is not credit, a plan of another customer or currency, and changes nothing', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const { setting, plan, account } = await virtualAccountPlan(api, workspaceId, 10_000);
    const ordinary = await newPayment(api, plan.id, { amount: 10_000 });
    const credit = (await received(setting, transfer(account, 5_000))).payment_id;
    const mine = await newTrack(api, { customerId: plan.customerId, amount: 8_000 });
    const theirs = await newTrack(api, { amount: 8_000 });
    const dollars = await newTrack(api, { customerId: plan.customerId, amount: 8_000, currency: 'USD' });

    const notCredit = await api.post(`/payments/${ordinary.id}/apply`, { trackId: mine.id });
    assert.deepEqual([notCredit.status, notCredit.body.error.code], [409, 'invalid_state']);
    const otherCustomer = await api.post(`/payments/${credit}/apply`, { trackId: theirs.id });
    assert.equal(otherCustomer.status, 422);
    assert.ok(otherCustomer.body.error.details.fields.trackId);
    const otherCurrency = await api.post(`/payments/${credit}/apply`, { trackId: dollars.id });
    assert.equal(otherCurrency.status, 422);
    assert.match(otherCurrency.body.error.details.fields.trackId, /NGN/);
    const missing = await api.post(`/payments/${credit}/apply`, {
      trackId: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C',
    });
    assert.deepEqual([missing.status, missing.body.error.details.field], [404, 'trackId']);
    const noPayment = await api.post('/payments/pay_01JD7Z6P4S9T2V5W8X0Y2Z4B6C/apply', { trackId: mine.id });
    assert.equal(noPayment.status, 404);
    const typo = await api.post(`/payments/${credit}/apply`, { trackID: mine.id });
    assert.equal(typo.status, 422);
    assert.equal((await api.delete(`/tracks/${mine.id}`)).status, 200);
    const archived = await api.post(`/payments/${credit}/apply`, { trackId: mine.id });
    assert.deepEqual([archived.status, archived.body.error.code], [409, 'invalid_state']);
    for (const id of [theirs.id, dollars.id]) {
      assert.equal((await api.get(`/tracks/${id}`)).body.data.balance, 8_000);
    }
    assert.deepEqual(await creditOf(api, plan.customerId), { NGN: 5_000, USD: 0 });
    // Two applies at once: one wins, the other finds it applied.
    const target = await newTrack(api, { customerId: plan.customerId, amount: 8_000 });
    const answers = await Promise.all(
      [1, 2].map(() => api.post(`/payments/${credit}/apply`, { trackId: target.id })),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409]);
    assert.equal((await api.get(`/tracks/${target.id}`)).body.data.balance, 3_000);
  });

  test('a checkout paid for more than the plan owes: the plan takes its balance, the excess is credit', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const setting = await providerSetting(t, workspaceId, 'gatewayA');
    const plan = await newTrack(api, { amount: 20_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'one_time',
      fixed_amount: 20_000,
      start_date: '2028-01-25T09:00:00Z',
      collection_method: 'gatewayA_checkout',
    });
    await api.post('/account/test-clock/advance', { to: '2028-01-25T00:00:00Z' });
    const [due] = (await api.get(`/collection-schedules/${schedule.id}/obligations`)).body.data.items;
    const checkoutId = new URL(due.checkout_url).pathname.split('/').pop() as string;
    const receipt = await received(
      setting,
      notification(checkoutId, { type: 'checkout.completed', amount: 26_000 }),
    );
    assert.equal(receipt.outcome, 'recorded');
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 0);
    assert.deepEqual(await creditOf(api, plan.customerId), { NGN: 6_000 });
  });
});

describe('money collected for a named obligation pays that obligation first', () => {
  /** A plan with two monthly checkout obligations (25 Jan, 25 Feb), both due with their checkout pages. */
  async function twoCheckouts(api: Client, workspaceId: string) {
    const setting = await providerSetting(t, workspaceId, 'gatewayA');
    const plan = await newTrack(api, { amount: 40_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 20_000,
      start_date: '2028-01-25T09:00:00Z',
      end_date: '2028-02-25T09:00:00Z',
      collection_method: 'gatewayA_checkout',
    });
    await api.post('/account/test-clock/advance', { to: '2028-02-25T00:00:00Z' });
    const obligations = async () =>
      [...(await api.get(`/collection-schedules/${schedule.id}/obligations`)).body.data.items].reverse();
    const [january, february] = await obligations();
    const pathOf = (o: any) => new URL(o.checkout_url).pathname;
    return { setting, plan, schedule, obligations, january, february, pathOf };
  }

  const pay = (path: string) =>
    t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });

  test("a checkout payment for February pays February, not January's overdue one; its page is then done", async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const { obligations, january, february, pathOf } = await twoCheckouts(api, workspaceId);
    assert.equal(january.status, 'overdue');
    const paid = await pay(pathOf(february));
    assert.match(paid.body, /<h1>Paid<\/h1>/);
    const [jan, feb] = await obligations();
    assert.deepEqual([jan.status, feb.status], ['overdue', 'paid']);
    assert.match((await t.app.inject({ method: 'GET', url: pathOf(february) })).body, /Already paid/);
    assert.match((await t.app.inject({ method: 'GET', url: pathOf(january) })).body, /Pay ₦200\.00/);
  });

  test('a part payment leaves the checkout usable for the rest; it is consumed once paid in full', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const { setting, obligations, january, pathOf } = await twoCheckouts(api, workspaceId);
    const checkoutId = pathOf(january).split('/').pop() as string;
    await received(setting, notification(checkoutId, { type: 'checkout.completed', amount: 5_000 }));
    assert.deepEqual(
      (await obligations()).map((o) => [o.status, o.amount_paid]),
      [
        ['overdue', 5_000],
        ['pending', 0],
      ],
    );
    assert.match((await t.app.inject({ method: 'GET', url: pathOf(january) })).body, /Pay ₦150\.00/);
    assert.match((await pay(pathOf(january))).body, /<h1>Paid<\/h1>/);
    assert.equal((await obligations())[0].status, 'paid');
    assert.match((await pay(pathOf(january))).body, /Already paid/);
    assert.equal((await obligations())[1].amount_paid, 0, 'the second press paid nothing');
  });

  test("a cancelled schedule's checkout shows a clear page and records nothing", async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const { plan, schedule, january, pathOf } = await twoCheckouts(api, workspaceId);
    assert.equal((await api.patch(`/collection-schedules/${schedule.id}`, { action: 'cancel' })).status, 200);
    const shown = await t.app.inject({ method: 'GET', url: pathOf(january) });
    assert.equal(shown.statusCode, 410);
    assert.match(shown.body, /No longer due/);
    assert.doesNotMatch(shown.body, /<button/);
    const pressed = await pay(pathOf(january));
    assert.equal(pressed.statusCode, 410);
    assert.equal((await api.get(`/tracks/${plan.id}/payments`)).body.data.items.length, 0);
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 40_000);
  });

  test('a malformed checkout link (NUL, control characters, bad encoding) gets the not-found page, never 5xx', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const { plan, january, pathOf } = await twoCheckouts(api, workspaceId);
    const real = pathOf(january);
    const paths = [
      `${real}%00`,
      '/checkout/%00',
      `${real}%01`,
      `${real}%FF`,
      '/checkout/%E0%A4%A',
      '/checkout/%',
      `${real}?x=%00`,
      `${real}/x`,
      `/checkout/chk_${'A'.repeat(5_000)}`,
    ];
    let address = 0;
    for (const path of paths) {
      for (const method of ['GET', 'POST'] as const) {
        const res = await t.app.inject({
          method,
          url: path,
          remoteAddress: `198.51.100.${++address}`,
          ...(method === 'POST'
            ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' }
            : {}),
        });
        const what = `${method} ${path.slice(0, 60)}: ${res.statusCode} ${res.body.slice(0, 120)}`;
        assert.equal(res.statusCode, 404, what);
        assert.match(res.headers['content-type'] as string, /^text\/html/, what);
        assert.match(res.body, /Checkout not found/, what);
      }
    }
    assert.equal((await api.get(`/tracks/${plan.id}/payments`)).body.data.items.length, 0);
  });

  test('a collection attempt pays the obligation it was made for, even when an older one is overdue', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 100_000 });
    // January's instalment, collected by hand (it is overdue), and February's, by automatic debit.
    const manual = await api.post('/collection-schedules', {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'one_time',
      fixed_amount: 20_000,
      start_date: '2028-01-21T09:00:00Z',
    });
    assert.equal(manual.status, 201, JSON.stringify(manual.body));
    const debit = await api.post('/collection-schedules', {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'one_time',
      fixed_amount: 30_000,
      start_date: '2028-02-01T09:00:00Z',
      collection_method: 'auto_debit',
    });
    assert.equal(debit.status, 201, JSON.stringify(debit.body));
    await approvedMandate(t, api, debit.body.data.id);
    await runSweepsNow(t.ctx, { mode: 'test', workspaceId, now: new Date('2028-02-01T00:00:00Z') });
    const [attempt] = (await api.get(`/collection-attempts?schedule_id=${debit.body.data.id}`)).body.data
      .items;
    assert.equal(attempt.status, 'succeeded');
    const [january] = (await api.get(`/collection-schedules/${manual.body.data.id}/obligations`)).body.data
      .items;
    const [february] = (await api.get(`/collection-schedules/${debit.body.data.id}/obligations`)).body.data
      .items;
    assert.deepEqual([january.status, january.amount_paid], ['overdue', 0]);
    assert.deepEqual([february.status, february.amount_paid], ['paid', 30_000]);
  });
});

describe("a provider's late success", () => {
  test('a success reported after the attempt timed out records the payment and cancels the pending retry', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const setting = await providerSetting(t, workspaceId, 'gatewayA');
    const plan = await newTrack(api, { amount: 60_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 20_000,
      start_date: '2028-01-25T09:00:00Z',
      end_date: '2028-03-25T09:00:00Z',
      collection_method: 'auto_debit',
    });
    await approvedMandate(t, api, schedule.id);
    const timingOut = withCharge(t, async () => ({
      status: 'failed',
      code: 'timeout',
      message: 'The provider did not answer in time.',
      retryable: true,
    }));
    await runSweepsNow(timingOut, { mode: 'test', workspaceId, now: new Date('2028-01-25T00:00:00Z') });
    const attempts = async () =>
      [...(await api.get(`/collection-attempts?schedule_id=${schedule.id}`)).body.data.items].reverse();
    const [first, retry] = await attempts();
    assert.deepEqual([first.status, first.failure_code, retry.status], ['failed', 'timeout', 'scheduled']);

    const late = await received(setting, notification(first.id, { amount: 20_000 }));
    assert.equal(late.outcome, 'recorded');
    assert.ok(late.payment_id);
    const [answered, cancelled] = await attempts();
    assert.deepEqual([answered.status, answered.payment_id], ['succeeded', late.payment_id]);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 40_000);
    // The day of the retry comes: nothing is charged again.
    await runSweepsNow(t.ctx, { mode: 'test', workspaceId, now: new Date('2028-01-26T12:00:00Z') });
    assert.equal((await api.get(`/tracks/${plan.id}/payments`)).body.data.items.length, 1);
    const again = await received(setting, notification(first.id, { amount: 20_000 }));
    assert.equal(again.outcome, 'already_recorded');
  });
});

describe('a revoke that lands while a charge is claimed', () => {
  test('an attempt left in flight is not charged again on a mandate revoked meanwhile: it is blocked', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 60_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'one_time',
      fixed_amount: 20_000,
      start_date: '2028-01-25T09:00:00Z',
      collection_method: 'auto_debit',
    });
    const mandate = await approvedMandate(t, api, schedule.id);
    // The worker claims the attempt and stops before the provider answers.
    const stopped = withCharge(t, () => Promise.reject(new Error('worker stopped')));
    await runSweepsNow(stopped, { mode: 'test', workspaceId, now: new Date('2028-01-25T00:00:00Z') }).catch(
      () => undefined,
    );
    const [inFlight] = (await api.get(`/collection-attempts?schedule_id=${schedule.id}`)).body.data.items;
    assert.equal(inFlight.status, 'processing');
    assert.equal((await api.post(`/payment-mandates/${mandate.id}/revoke`, {})).status, 200);
    const charged: string[] = [];
    const counting = withCharge(t, (request, charge) => {
      charged.push(request.reference);
      return charge(request);
    });
    await runSweepsNow(counting, { mode: 'test', workspaceId, now: new Date('2028-01-25T00:10:00Z') });
    assert.deepEqual(charged, []);
    const [after] = (await api.get(`/collection-attempts?schedule_id=${schedule.id}`)).body.data.items;
    assert.deepEqual([after.status, after.blocked_reason], ['blocked', 'no_active_mandate']);
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 60_000);
  });
});

describe('references and signatures', () => {
  test("a reversed payment's reference may be recorded again", async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 50_000 });
    const first = await newPayment(api, plan.id, { amount: 5_000, reference: 'GTB-TRF-0091' });
    const taken = await api.post('/payments', {
      trackId: plan.id,
      amount: 5_000,
      reference: 'gtb-trf-0091 ',
    });
    assert.equal(taken.status, 422);
    assert.equal((await api.post(`/payments/${first.id}/reverse`, { reason: 'bounced' })).status, 200);
    const again = await api.post('/payments', { trackId: plan.id, amount: 5_000, reference: 'GTB-TRF-0091' });
    assert.equal(again.status, 201, JSON.stringify(again.body));
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 45_000);
  });

  test('an unsigned notification is 401 whatever its body: the signature is checked before the form', async () => {
    const { workspaceId } = await newWorkspace(t);
    const setting = await providerSetting(t, workspaceId, 'gatewayA');
    for (const body of [{}, { id: 'x', type: 'charge.succeeded' }, { hello: 'world' }]) {
      const res = await notify(t, setting, body, '0'.repeat(64));
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(JSON.parse(res.body).error.code, 'unauthorized');
      assert.doesNotMatch(res.body, /reference|occurred_at/);
    }
    const signedButBad = await notify(t, setting, { id: 'x', type: 'charge.succeeded' });
    assert.equal(signedButBad.statusCode, 422);
    const nul = await t.app.inject({
      method: 'POST',
      url: '/api/v1/provider-notifications/prv_%00',
      headers: { 'content-type': 'application/json', 'x-provider-signature': '0'.repeat(64) },
      payload: '{}',
    });
    assert.equal(nul.statusCode, 422);
    assert.ok(JSON.parse(nul.body).error.details.fields.settingId);
  });
});
