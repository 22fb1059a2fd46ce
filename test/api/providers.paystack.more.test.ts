import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runSweepsNow } from '../../src/jobs/sweeps.js';
import { type PaystackChargeOutcome, type PaystackFake, startPaystackFake } from '../fakes/paystack.js';
import type { Client } from '../helpers/api.js';
import type { TestApp } from '../helpers/app.js';
import { newSchedule, threeMonthlyDebits } from '../helpers/collections.js';
import { newCustomer, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';
import {
  consentToProvider,
  deliver,
  liveProviderApp,
  onProviderPage,
  payerAddress,
  setProviderKey,
} from '../helpers/live-providers.js';

const NOW = '2028-01-20T12:00:00.000Z';
const DUE = '2028-01-25T00:00:00Z';
const MINUTE_MS = 60_000;

type Row = Record<string, any>;
type Webhook = { body: string; headers: Record<string, string> };

/** Our ids carry `_`; Paystack takes `.` in their place (src/ports/paystack/references.ts). */
const paystackRef = (ours: string) => ours.replaceAll('_', '.');

const advanceTo = (api: Client, to: string) => api.post('/account/test-clock/advance', { to });

async function attemptsOf(api: Client, scheduleId: string): Promise<Row[]> {
  const res = await api.get(`/collection-attempts?schedule_id=${scheduleId}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return [...res.body.data.items].reverse();
}

async function paymentsOf(api: Client, query: string): Promise<Row[]> {
  const res = await api.get(`/payments?${query}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.items;
}

async function eventsOf(api: Client, type: string): Promise<Row[]> {
  const res = await api.get(`/events?type=${type}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.items;
}

const balanceOf = async (api: Client, planId: string) =>
  (await api.get(`/tracks/${planId}`)).body.data.balance;

/** Asks the fake as the business's own code would (Verify Transaction), with the secret key. */
async function verifiedAtPaystack(fake: PaystackFake, reference: string): Promise<Row> {
  const res = await fetch(`${fake.url}/transaction/verify/${encodeURIComponent(reference)}`, {
    headers: { authorization: `Bearer ${fake.secretKey}` },
  });
  const body = (await res.json()) as Row;
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.data;
}

/**
 * Paystack's `charge.success` for a transaction the fake holds (its data is the transaction as Verify shows it),
 * signed as Paystack signs: for charges whose webhook the fake's controls do not produce (an answer held back).
 */
async function chargeSuccessWebhook(fake: PaystackFake, reference: string): Promise<Webhook> {
  const data = await verifiedAtPaystack(fake, reference);
  assert.equal(data.status, 'success');
  const body = JSON.stringify({ event: 'charge.success', data });
  return { body, headers: fake.sign(body) };
}

/** The charge_authorization calls the fake received for one of our attempts. */
const chargeCalls = (fake: PaystackFake, attemptId: string) =>
  fake.requests.filter(
    (r) =>
      r.method === 'POST' &&
      r.path === '/transaction/charge_authorization' &&
      (r.body as Row).reference === paystackRef(attemptId),
  ).length;

/** The payer approves on our consent page, authorises on Paystack's page and comes back to ours. */
async function authorizeAtPaystack(t: TestApp, consentUrl: string) {
  const address = payerAddress();
  const hosted = await consentToProvider(t, consentUrl, address);
  const landed = await onProviderPage(t, hosted, ['action', 'authorize'], address);
  assert.equal(landed.statusCode, 200, landed.body);
}

function makeHelpers(get: () => { t: TestApp; paystack: PaystackFake }) {
  async function paystackWorkspace() {
    const { t, paystack } = get();
    const ws = await newWorkspace(t);
    const setting = await setProviderKey(t, ws.workspaceId, {
      provider: 'paystack',
      mode: 'test',
      secretKey: paystack.secretKey,
      rails: 'checkout,virtual_account,debit',
    });
    return { ...ws, setting };
  }

  /** A Paystack mandate for three monthly debits of `amount`, authorised on Paystack's page: active. */
  async function activeMandate(api: Client, amount = 30_000) {
    const { t } = get();
    const { plan, schedule, customer } = await threeMonthlyDebits(api, amount);
    const created = await api.post('/payment-mandates', {
      payer_type: 'customer',
      provider: 'paystack',
      schedule_id: schedule.id,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await authorizeAtPaystack(t, created.body.data.consent_url);
    return { plan, schedule, customer, mandate: created.body.data };
  }

  /** A workspace whose first Paystack debit (30 000 of a 90 000 plan) meets `outcome` on its due date. */
  async function firstDebit(outcome?: PaystackChargeOutcome) {
    const ws = await paystackWorkspace();
    const collection = await activeMandate(ws.api);
    if (outcome !== undefined) get().paystack.nextCharge(outcome);
    const advanced = await advanceTo(ws.api, DUE);
    assert.equal(advanced.status, 200, JSON.stringify(advanced.body));
    const [attempt] = await attemptsOf(ws.api, collection.schedule.id);
    assert.ok(attempt, 'an attempt was made on the due date');
    return { ...ws, ...collection, attempt };
  }

  return { paystackWorkspace, activeMandate, firstDebit };
}

/**
 * Each text of the adapter's failure table (src/ports/paystack/failures.ts) that a failed charge can carry as its
 * `gateway_response`, with what we record: at least one per normalised code, and one text the table lacks.
 */
const FAILURES: { text: string; code: string; retried: boolean }[] = [
  { text: 'Insufficient Funds', code: 'insufficient_funds', retried: true },
  { text: 'Account Closed', code: 'account_closed', retried: false },
  { text: 'Declined', code: 'declined', retried: false },
  { text: 'Expired Card', code: 'declined', retried: false },
  { text: 'Denied by Fraud System', code: 'declined', retried: false },
  // The table's one retryable decline: the bank says the account cannot be charged at that time.
  { text: 'Access Denied', code: 'declined', retried: true },
  { text: 'Do Not Honor', code: 'declined', retried: false },
  {
    text: 'Enter the OTP code sent to your phone to complete the transaction',
    code: 'authentication_required',
    retried: false,
  },
  {
    text: 'An OTP related error has occurred, please contact support',
    code: 'authentication_required',
    retried: false,
  },
  { text: 'Error, please try again', code: 'provider_unavailable', retried: true },
  {
    text: 'Either remote server cannot be reached or the network connection was reset/broken',
    code: 'provider_unavailable',
    retried: true,
  },
  {
    text: 'Authorization code does not exist or has been deactivated',
    code: 'mandate_revoked',
    retried: false,
  },
];

let t: TestApp;
let paystack: PaystackFake;
before(async () => {
  paystack = await startPaystackFake({ delayMs: 1_500 });
  t = await liveProviderApp({ paystack: paystack.url }, NOW);
});
after(async () => {
  await t.close();
  await paystack.close();
});

const { paystackWorkspace, activeMandate, firstDebit } = makeHelpers(() => ({ t, paystack }));

describe('Paystack through HTTP: failures, retries and reconciliation', () => {
  for (const row of FAILURES) {
    test(`a charge failed with '${row.text}' is ${row.code}, ${row.retried ? 'retried' : 'not retried'}`, async () => {
      const { api, schedule, attempt } = await firstDebit({ decline: row.text });
      assert.equal(attempt.status, 'failed', JSON.stringify(attempt));
      assert.equal(attempt.failure_code, row.code);
      assert.equal(attempt.provider_failure_code, row.text);
      assert.equal(attempt.provider_reference, paystackRef(attempt.id));
      const attempts = await attemptsOf(api, schedule.id);
      if (row.retried) {
        assert.ok(attempt.next_retry_at, 'a retry is scheduled');
        assert.equal(attempt.no_retry_reason, null);
        assert.equal(attempts.length, 2);
        assert.equal(attempts[1]?.status, 'scheduled');
        assert.equal(attempts[1]?.attempt_number, 2);
        assert.equal(attempts[1]?.scheduled_for, attempt.next_retry_at);
      } else {
        assert.equal(attempt.next_retry_at, null);
        assert.equal(attempt.no_retry_reason, 'not_retryable');
        assert.equal(attempts.length, 1);
      }
    });
  }

  test('authentication_required is never charged again: a week later the fake has seen one charge', async () => {
    const { api, schedule, attempt } = await firstDebit({
      decline: 'Enter the OTP code sent to your phone to complete the transaction',
    });
    assert.equal(attempt.failure_code, 'authentication_required');
    const before = paystack.requests.filter((r) => r.path === '/transaction/charge_authorization').length;
    await advanceTo(api, '2028-02-02T00:00:00Z');
    const attempts = await attemptsOf(api, schedule.id);
    assert.equal(attempts.length, 1, JSON.stringify(attempts));
    assert.equal(attempts[0]?.no_retry_reason, 'not_retryable');
    const afterward = paystack.requests.filter((r) => r.path === '/transaction/charge_authorization').length;
    assert.equal(afterward, before);
  });

  test('a customer whose e-mail changed after authorising is still charged under the e-mail Paystack knows', async () => {
    const { api, customer, schedule } = await paystackWorkspace().then(async (ws) => ({
      ...ws,
      ...(await activeMandate(ws.api)),
    }));
    // Paystack ties an authorization to the e-mail it was made with: charged with another, it answers 400.
    const changed = await api.patch(`/customers/${customer.id}`, { email: 'ada.new@example.com' });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    await advanceTo(api, DUE);
    const [attempt] = await attemptsOf(api, schedule.id);
    assert.equal(attempt?.status, 'succeeded', JSON.stringify(attempt));
    assert.equal(paystack.transactionsFor(paystackRef(String(attempt?.id))), 1);
  });

  test('429 is provider_unavailable, retried a day later, and the retry is charged and paid', async () => {
    const { api, schedule, plan, attempt } = await firstDebit({ status: 429 });
    assert.equal(attempt.status, 'failed', JSON.stringify(attempt));
    assert.equal(attempt.failure_code, 'provider_unavailable');
    assert.equal(attempt.provider_failure_code, 'rate_limited');
    assert.ok(attempt.next_retry_at);
    assert.equal(attempt.no_retry_reason, null);
    assert.equal(paystack.transactionsFor(paystackRef(attempt.id)), 0);

    await advanceTo(api, attempt.next_retry_at);
    const [, retry] = await attemptsOf(api, schedule.id);
    assert.equal(retry?.status, 'succeeded', JSON.stringify(retry));
    assert.equal(retry?.attempt_number, 2);
    assert.equal(paystack.transactionsFor(paystackRef(String(retry?.id))), 1);
    assert.equal((await paymentsOf(api, `trackId=${plan.id}`)).length, 1);
    assert.equal(await balanceOf(api, plan.id), 60_000);
  });

  test('a charge whose answer times out stays processing, is asked about once reconcile_at passes, and is paid once', async () => {
    const { api, schedule, plan, attempt } = await firstDebit('timeout');
    assert.equal(attempt.status, 'processing', JSON.stringify(attempt));
    assert.equal(attempt.payment_id, null);
    // reconcile_at is not on the API's attempt: read from its row.
    const row = await t.ctx.db
      .selectFrom('attempts')
      .select(['reconcile_at'])
      .where('id', '=', attempt.id)
      .executeTakeFirstOrThrow();
    assert.ok(row.reconcile_at, 'reconcile_at is set');
    const reference = paystackRef(attempt.id);
    assert.equal(paystack.transactionsFor(reference), 1, 'Paystack took the charge');

    await advanceTo(api, new Date(Date.parse(row.reconcile_at) + MINUTE_MS).toISOString());
    const [settled, ...others] = await attemptsOf(api, schedule.id);
    assert.equal(settled?.status, 'succeeded', JSON.stringify(settled));
    assert.equal(settled?.provider_reference, reference);
    assert.equal(others.length, 0);
    assert.equal(paystack.transactionsFor(reference), 1);
    assert.equal(chargeCalls(paystack, attempt.id), 1, 'asked about, never charged again');
    const payments = await paymentsOf(api, `trackId=${plan.id}`);
    assert.equal(payments.length, 1);
    assert.equal(payments[0]?.id, settled?.payment_id);
    assert.equal(await balanceOf(api, plan.id), 60_000);
  });

  test('a 500 from Paystack leaves the charge unknown; reconciliation finds no trace and charges it once', async () => {
    const { api, schedule, plan, attempt } = await firstDebit({ status: 500 });
    assert.equal(attempt.status, 'processing', JSON.stringify(attempt));
    assert.equal(paystack.transactionsFor(paystackRef(attempt.id)), 0);
    await advanceTo(api, '2028-01-25T00:05:00Z');
    const [settled] = await attemptsOf(api, schedule.id);
    assert.equal(settled?.status, 'succeeded', JSON.stringify(settled));
    assert.equal(paystack.transactionsFor(paystackRef(attempt.id)), 1);
    assert.equal((await paymentsOf(api, `trackId=${plan.id}`)).length, 1);
  });

  test('a bank debit that fails at the bank (no webhook: Paystack sends none) is found failed by reconciliation', async () => {
    const { api, schedule, attempt } = await firstDebit('processing');
    assert.equal(attempt.status, 'processing');
    assert.deepEqual(await paystack.settleDebit(String(attempt.provider_reference), 'failed'), []);
    await advanceTo(api, '2028-01-25T00:05:00Z');
    const [failed, retry] = await attemptsOf(api, schedule.id);
    assert.equal(failed?.status, 'failed', JSON.stringify(failed));
    assert.equal(failed?.failure_code, 'insufficient_funds');
    assert.equal(failed?.provider_failure_code, 'Insufficient Funds');
    assert.ok(failed?.next_retry_at);
    assert.equal(retry?.status, 'scheduled');
  });
});

describe('Paystack through HTTP: checkouts', () => {
  /** A gatewayA_checkout schedule whose first obligation is due: Paystack made its checkout page. */
  async function dueCheckout() {
    const ws = await paystackWorkspace();
    const customer = await newCustomer(ws.api, { email: 'ada@example.com' });
    const plan = await newTrack(ws.api, { customerId: customer.id, amount: 90_000 });
    const schedule = await newSchedule(ws.api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 30_000,
      start_date: '2028-01-25T09:00:00Z',
      end_date: '2028-03-25T09:00:00Z',
      collection_method: 'gatewayA_checkout',
    });
    await advanceTo(ws.api, DUE);
    const obligations = (await ws.api.get(`/collection-schedules/${schedule.id}/obligations?limit=100`)).body
      .data.items as Row[];
    const due = obligations.find((o) => o.checkout_url !== null);
    assert.ok(due, JSON.stringify(obligations));
    assert.ok(String(due.checkout_url).startsWith(`${paystack.url}/checkout/`), due.checkout_url);
    // Paystack's reference of the checkout: ours (`chk_…`) with `.` for `_`, as the adapter sent it.
    const initialized = paystack.requests.filter((r) => r.path === '/transaction/initialize').at(-1);
    assert.ok(initialized, 'the checkout was initialized at Paystack');
    const reference = String((initialized.body as Row).reference);
    assert.match(reference, /^chk\./);
    return { ...ws, plan, schedule, obligation: due, reference };
  }

  test('a checkout paid on Paystack is one payment, though its webhook comes three times', async () => {
    const { api, setting, plan, schedule, obligation, reference } = await dueCheckout();
    const webhooks = await paystack.payCheckout(reference);
    assert.equal(webhooks.length, 1);
    for (let i = 0; i < 3; i++) {
      const res = await deliver(t, setting.id, webhooks[0] as Webhook);
      assert.equal(res.statusCode, 200, res.body);
      const [event] = JSON.parse(res.body).data.events;
      assert.equal(event.replayed, i > 0);
      assert.equal(event.outcome, 'recorded', res.body);
    }
    const payments = await paymentsOf(api, `trackId=${plan.id}`);
    assert.equal(payments.length, 1);
    assert.equal(payments[0]?.method, 'gateway_checkout');
    assert.equal(payments[0]?.amount, 30_000);
    const payment = (await api.get(`/payments/${payments[0]?.id}`)).body.data;
    assert.equal(payment.provider, 'paystack');
    assert.equal(payment.providerReference, reference);
    assert.equal(await balanceOf(api, plan.id), 60_000);
    const after = (await api.get(`/collection-schedules/${schedule.id}/obligations?limit=100`)).body.data
      .items as Row[];
    assert.equal(after.find((o) => o.id === obligation.id)?.status, 'paid');
  });

  test("a payer sent back from Paystack's checkout lands on our page, and the payment is recorded without the webhook", async () => {
    const { api, plan, obligation } = await dueCheckout();
    // The payer pays on Paystack's hosted page; Paystack's webhook has not arrived (the fake sends none here).
    const paid = await fetch(obligation.checkout_url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=pay',
      redirect: 'manual',
    });
    assert.equal(paid.status, 303);
    const back = new URL(paid.headers.get('location') as string);
    assert.match(back.pathname, /^\/checkout\/chk_[A-Za-z0-9_-]{22}\/return$/);
    const landed = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    assert.equal(
      landed.statusCode,
      200,
      `our return page: ${landed.statusCode} ${landed.body.slice(0, 300)}`,
    );
    // lookupCheckout exists for this (src/ports/live-provider.ts: "on return, when no webhook came").
    assert.equal((await paymentsOf(api, `trackId=${plan.id}`)).length, 1);
  });
});

describe('Paystack through HTTP: webhooks out of order, unknown, forged', () => {
  test('charge.success arriving while our charge call still waits for its answer: one payment, one charge', async () => {
    const { api, setting, schedule, plan } = await paystackWorkspace().then(async (ws) => ({
      ...ws,
      ...(await activeMandate(ws.api)),
    }));
    paystack.nextCharge('timeout');
    const seen = paystack.requests.length;
    const advancing = advanceTo(api, DUE);
    // Paystack has the charge (its answer is held back): its webhook comes before our call gives up.
    let charge: Row | undefined;
    while (!charge) {
      charge = paystack.requests.slice(seen).find((r) => r.path === '/transaction/charge_authorization')
        ?.body as Row | undefined;
      if (!charge) await sleep(5);
    }
    const reference = String(charge.reference);
    while (paystack.transactionsFor(reference) === 0) await sleep(5);
    const webhook = await chargeSuccessWebhook(paystack, reference);
    for (let i = 0; i < 2; i++) {
      const res = await deliver(t, setting.id, webhook);
      assert.equal(res.statusCode, 200, res.body);
      const [event] = JSON.parse(res.body).data.events;
      assert.deepEqual([event.outcome, event.replayed], ['recorded', i > 0], res.body);
    }
    assert.equal((await advancing).status, 200);
    const [attempt] = await attemptsOf(api, schedule.id);
    assert.equal(attempt?.status, 'succeeded', JSON.stringify(attempt));

    // Reconciliation time passes: nothing is asked or charged again.
    await advanceTo(api, '2028-01-25T00:05:00Z');
    const attempts = await attemptsOf(api, schedule.id);
    assert.deepEqual(
      attempts.map((a) => a.status),
      ['succeeded'],
    );
    assert.equal(paystack.transactionsFor(reference), 1);
    assert.equal(chargeCalls(paystack, String(attempt?.id)), 1);
    const payments = await paymentsOf(api, `trackId=${plan.id}`);
    assert.equal(payments.length, 1);
    assert.equal(payments[0]?.id, attempt?.payment_id);
    assert.equal(await balanceOf(api, plan.id), 60_000);
  });

  test('charge.success delivered twice after the answer was lost, then reconciliation: one payment', async () => {
    const { api, setting, schedule, plan, attempt } = await firstDebit('timeout');
    assert.equal(attempt.status, 'processing');
    const webhook = await chargeSuccessWebhook(paystack, paystackRef(attempt.id));
    for (let i = 0; i < 2; i++) assert.equal((await deliver(t, setting.id, webhook)).statusCode, 200);
    await advanceTo(api, '2028-01-25T00:05:00Z');
    const [settled, ...others] = await attemptsOf(api, schedule.id);
    assert.equal(settled?.status, 'succeeded');
    assert.equal(others.length, 0);
    assert.equal((await paymentsOf(api, `trackId=${plan.id}`)).length, 1);
    assert.equal(chargeCalls(paystack, attempt.id), 1);
    assert.equal(await balanceOf(api, plan.id), 60_000);
  });

  test('a refund event before its payment is 503 and kept for nothing; delivered again later, it is handled', async () => {
    const { api, setting, schedule, plan, attempt } = await firstDebit('processing');
    const reference = String(attempt.provider_reference);
    const [charged] = await paystack.settleDebit(reference, 'success');
    // Refunded from Paystack's dashboard before its charge.success reached us.
    const asked = await fetch(`${paystack.url}/refund`, {
      method: 'POST',
      headers: { authorization: `Bearer ${paystack.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ transaction: reference }),
    });
    assert.equal(asked.status, 200, await asked.text());
    const [refunded] = await paystack.settleRefund(reference, 'succeeded');

    const early = await deliver(t, setting.id, refunded as Webhook);
    assert.equal(early.statusCode, 503, early.body);
    assert.equal(JSON.parse(early.body).error.code, 'service_unavailable');
    assert.equal((await paymentsOf(api, `trackId=${plan.id}`)).length, 0);
    assert.equal((await eventsOf(api, 'payment.refunded')).length, 0);
    assert.equal((await attemptsOf(api, schedule.id))[0]?.status, 'processing');

    const money = await deliver(t, setting.id, charged as Webhook);
    assert.equal(money.statusCode, 200, money.body);
    const [paid] = await attemptsOf(api, schedule.id);
    assert.equal(paid?.status, 'succeeded');
    assert.equal(await balanceOf(api, plan.id), 60_000);

    const again = await deliver(t, setting.id, refunded as Webhook);
    assert.equal(again.statusCode, 200, again.body);
    const [event] = JSON.parse(again.body).data.events;
    assert.equal(event.replayed, false, 'the first delivery was not kept');
    assert.equal(event.outcome, 'handled');
    const payment = (await api.get(`/payments/${paid?.payment_id}`)).body.data;
    assert.equal(payment.status, 'reversed');
    assert.equal(payment.refund.status, 'succeeded');
    assert.equal(await balanceOf(api, plan.id), 90_000);
    assert.equal((await eventsOf(api, 'payment.refunded')).length, 1);
  });

  test('money for a reference that names nothing here is one unapplied payment, evented payment.unapplied', async () => {
    const { api, setting } = await paystackWorkspace();
    // A payment taken on Paystack outside paytrack (a payment page): its reference is Paystack's own.
    const started = await fetch(`${paystack.url}/transaction/initialize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${paystack.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'stranger@example.com', amount: 12_345 }),
    });
    const { data } = (await started.json()) as Row;
    const webhooks = await paystack.payCheckout(data.reference);
    for (const webhook of [...webhooks, ...webhooks]) {
      const res = await deliver(t, setting.id, webhook);
      assert.equal(res.statusCode, 200, res.body);
    }
    const unapplied = await paymentsOf(api, 'unapplied=true');
    assert.equal(unapplied.length, 1, JSON.stringify(unapplied));
    const payment = (await api.get(`/payments/${unapplied[0]?.id}`)).body.data;
    assert.equal(payment.amount, 12_345);
    assert.equal(payment.unapplied, true);
    assert.equal(payment.unappliedReason, 'unknown_reference');
    assert.equal(payment.trackId, null);
    assert.equal(payment.provider, 'paystack');
    assert.equal(payment.providerReference, data.reference);
    const events = await eventsOf(api, 'payment.unapplied');
    assert.equal(events.length, 1);
    assert.equal(events[0]?.data?.id ?? events[0]?.data?.object?.id, payment.id, JSON.stringify(events[0]));
  });

  test('a tampered body, another key or no signature is 401 and changes nothing; the genuine one then counts', async () => {
    const { api, setting, schedule, plan, attempt } = await firstDebit('processing');
    const [genuine] = (await paystack.settleDebit(
      String(attempt.provider_reference),
      'success',
    )) as Webhook[];
    const inflated = genuine!.body.replace('"amount":30000', '"amount":3000000');
    assert.notEqual(inflated, genuine!.body);
    const otherKey = createHmac('sha512', 'sk_test_someoneelse000000000000000000000')
      .update(genuine!.body)
      .digest('hex');
    const forgeries: Webhook[] = [
      { body: inflated, headers: genuine!.headers },
      { body: genuine!.body, headers: { 'x-paystack-signature': otherKey } },
      { body: genuine!.body, headers: {} },
      { body: genuine!.body, headers: { 'x-paystack-signature': 'not-hex' } },
    ];
    for (const forged of forgeries) {
      const res = await deliver(t, setting.id, forged);
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(JSON.parse(res.body).error.code, 'unauthorized');
    }
    assert.equal((await attemptsOf(api, schedule.id))[0]?.status, 'processing');
    assert.equal((await paymentsOf(api, `trackId=${plan.id}`)).length, 0);
    assert.equal(await balanceOf(api, plan.id), 90_000);

    const real = await deliver(t, setting.id, genuine!);
    assert.equal(real.statusCode, 200, real.body);
    assert.equal(JSON.parse(real.body).data.events[0].replayed, false);
    assert.equal(await balanceOf(api, plan.id), 60_000);
  });
});

describe('Paystack through HTTP: refunds', () => {
  test('a refund asked with an Idempotency-Key answers the same when replayed, and is asked of Paystack once', async () => {
    const { api, attempt } = await firstDebit();
    const key = { 'Idempotency-Key': 'refund-once' };
    const body = { refund: true, reason: 'Returned' };
    const asked = await api.post(`/payments/${attempt.payment_id}/reverse`, body, key);
    const again = await api.post(`/payments/${attempt.payment_id}/reverse`, body, key);
    assert.deepEqual([asked.status, again.status], [200, 200], JSON.stringify(again.body));
    assert.equal(asked.body.data.refund.status, 'pending');
    assert.deepEqual(again.body.data, asked.body.data);
  });

  test('a refund Paystack fails leaves the payment recorded, refund failed with its reason; it may be asked again', async () => {
    const { api, setting, plan, attempt } = await firstDebit();
    assert.equal(attempt.status, 'succeeded');
    const asked = await api.post(`/payments/${attempt.payment_id}/reverse`, {
      refund: true,
      reason: 'Returned',
    });
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    assert.equal(asked.body.data.refund.status, 'pending');

    const webhooks = await paystack.settleRefund(paystackRef(attempt.id), 'failed');
    for (const webhook of [...webhooks, ...webhooks]) {
      const res = await deliver(t, setting.id, webhook);
      assert.equal(res.statusCode, 200, res.body);
    }
    const payment = (await api.get(`/payments/${attempt.payment_id}`)).body.data;
    assert.equal(payment.status, 'recorded');
    assert.equal(payment.refund.status, 'failed');
    assert.ok(payment.refund.failureReason, 'the reason is kept');
    assert.equal(await balanceOf(api, plan.id), 60_000);
    const failed = await eventsOf(api, 'payment.refund_failed');
    assert.equal(failed.length, 1);
    assert.equal((await eventsOf(api, 'payment.refunded')).length, 0);

    const again = await api.post(`/payments/${attempt.payment_id}/reverse`, { refund: true });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.refund.status, 'pending');
    assert.equal(again.body.data.refund.failureReason, null);
  });

  test('a second refund that Paystack fails too is recorded failed: its event is no replay of the first', async () => {
    const { api, setting, attempt } = await firstDebit();
    for (let round = 1; round <= 2; round++) {
      const asked = await api.post(`/payments/${attempt.payment_id}/reverse`, { refund: true });
      assert.equal(asked.status, 200, JSON.stringify(asked.body));
      assert.equal(asked.body.data.refund.status, 'pending');
      const [webhook] = await paystack.settleRefund(paystackRef(attempt.id), 'failed');
      const res = await deliver(t, setting.id, webhook as Webhook);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(JSON.parse(res.body).data.events[0].replayed, false, `round ${round}: ${res.body}`);
      const payment = (await api.get(`/payments/${attempt.payment_id}`)).body.data;
      assert.equal(payment.refund.status, 'failed', `round ${round}`);
    }
    assert.equal((await eventsOf(api, 'payment.refund_failed')).length, 2);
  });

  test('refund: true on a payment no provider collected is 422 naming refund, and changes nothing', async () => {
    const { api } = await paystackWorkspace();
    const plan = await newTrack(api, { amount: 50_000 });
    const cash = await newPayment(api, plan.id, { amount: 10_000 });
    const res = await api.post(`/payments/${cash.id}/reverse`, { refund: true });
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.ok(JSON.stringify(res.body.error).includes('refund'), JSON.stringify(res.body));
    assert.equal((await api.get(`/payments/${cash.id}`)).body.data.status, 'recorded');
    assert.equal(await balanceOf(api, plan.id), 40_000);
  });
});

describe('Paystack through HTTP: live mode', () => {
  let live: TestApp;
  let liveFake: PaystackFake;
  before(async () => {
    liveFake = await startPaystackFake({ secretKey: 'sk_live_paytrackfake0000000000000000000000' });
    live = await liveProviderApp({ paystack: liveFake.url }, NOW);
  });
  after(async () => {
    await live.close();
    await liveFake.close();
  });

  test('an approved live workspace charges one attempt through Paystack with its live key, and is paid', async () => {
    const ws = await newWorkspace(live);
    await setProviderKey(live, ws.workspaceId, {
      provider: 'paystack',
      mode: 'live',
      secretKey: liveFake.secretKey,
      rails: 'debit',
      approved: true,
    });
    const { activeMandate: liveMandate } = makeHelpers(() => ({ t: live, paystack: liveFake }));
    const { schedule, plan, mandate } = await liveMandate(ws.live);
    assert.equal((await ws.live.get(`/payment-mandates/${mandate.id}`)).body.data.status, 'active');
    // Live mode runs on the app's clock; the sweeps run as the worker runs them.
    live.clock.set(new Date(DUE));
    await runSweepsNow(live.ctx, { mode: 'live', now: live.clock.now() });
    const [attempt, ...others] = await attemptsOf(ws.live, schedule.id);
    assert.equal(attempt?.status, 'succeeded', JSON.stringify(attempt));
    assert.equal(others.length, 0);
    assert.equal(liveFake.transactionsFor(paystackRef(String(attempt?.id))), 1);
    const verified = await verifiedAtPaystack(liveFake, paystackRef(String(attempt?.id)));
    assert.equal(verified.domain, 'live');
    const payment = (await ws.live.get(`/payments/${attempt?.payment_id}`)).body.data;
    assert.equal(payment.provider, 'paystack');
    assert.equal(payment.source, 'provider');
    assert.equal(await balanceOf(ws.live, plan.id), 60_000);
    // The test mode of the same workspace has nothing of it.
    assert.equal((await paymentsOf(ws.api, '')).length, 0);
  });
});
