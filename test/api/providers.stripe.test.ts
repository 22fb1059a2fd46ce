import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { runSweepsNow } from '../../src/jobs/sweeps.js';
import {
  type SignedWebhook,
  type StripeChargeOutcome,
  type StripeFake,
  startStripeFake,
} from '../fakes/stripe.js';
import type { Client } from '../helpers/api.js';
import type { TestApp } from '../helpers/app.js';
import { newSchedule, threeMonthlyDebits } from '../helpers/collections.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';
import {
  consentToProvider,
  deliver,
  getMandate,
  liveProviderApp,
  onProviderPage,
  payerAddress,
  setProviderKey,
} from '../helpers/live-providers.js';

const NOW = '2028-01-20T12:00:00.000Z';
const DUE = '2028-01-25T00:00:00Z';
const MINUTE_MS = 60_000;

let t: TestApp;
let stripe: StripeFake;
before(async () => {
  stripe = await startStripeFake({
    webhookSecret: `whsec_${randomBytes(24).toString('base64url')}`,
    delayMs: 1_500,
  });
  t = await liveProviderApp({ stripe: stripe.url }, NOW);
});
after(async () => {
  await t.close();
  await stripe.close();
});

type Row = Record<string, any>;

async function advanceTo(api: Client, to: string) {
  const res = await api.post('/account/test-clock/advance', { to });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

/** When the app means to ask Stripe again about a charge in flight (kept on the attempt, not shown by the API). */
async function reconcileAt(attemptId: string): Promise<string | null> {
  const row = await t.ctx.db
    .selectFrom('attempts')
    .select('reconcile_at')
    .where('id', '=', attemptId)
    .executeTakeFirstOrThrow();
  return row.reconcile_at;
}

/** Three minutes past the due date: past a charge's first `reconcile_at` (two minutes), so the sweeps ask Stripe. */
const pastReconcile = (api: Client) => advanceTo(api, '2028-01-25T00:03:00Z');

async function attemptsOf(api: Client, scheduleId: string): Promise<Row[]> {
  const res = await api.get(`/collection-attempts?schedule_id=${scheduleId}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return [...res.body.data.items].reverse() as Row[];
}

async function paymentsOf(api: Client, planId: string) {
  const res = await api.get(`/payments?trackId=${planId}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.items;
}

const balanceOf = async (api: Client, planId: string) =>
  (await api.get(`/tracks/${planId}`)).body.data.balance;

async function eventsOf(api: Client, type: string): Promise<Row[]> {
  return (await api.get(`/events?type=${type}`)).body.data.items;
}

/** The charges (PaymentIntent creations) the fake was asked for with this attempt id, and the intents it holds. */
function chargesAt(fake: StripeFake, attemptId: string) {
  const requests = fake.requests.filter(
    (r) =>
      r.method === 'POST' &&
      r.path === '/v1/payment_intents' &&
      (r.body.metadata as Row | undefined)?.attempt_id === attemptId,
  ).length;
  const intents = [...fake.paymentIntents.values()].filter(
    (i) => i.metadata?.attempt_id === attemptId,
  ).length;
  return { requests, intents };
}

/** An event the fake produced, signed as Stripe would sign it now (the fake keeps events it did not hand out). */
function fakeEvent(type: string, objectId: string, fake = stripe): SignedWebhook {
  const event = fake.events.findLast((e) => e.type === type && e.data.object.id === objectId);
  assert.ok(event, `the fake produced ${type} for ${objectId}`);
  const body = JSON.stringify(event);
  return { body, headers: fake.sign(body) };
}

/** A call to the fake's API as another Stripe client (the business's Dashboard, say) would make it. */
async function stripeApi(path: string, form: Record<string, string>, fake = stripe): Promise<Row> {
  const res = await fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${fake.secretKey}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(form).toString(),
  });
  assert.equal(res.status, 200);
  return (await res.json()) as Row;
}

async function delivered(setting: { id: string }, webhook: SignedWebhook) {
  const res = await deliver(t, setting.id, webhook);
  assert.equal(res.statusCode, 200, res.body);
  return JSON.parse(res.body).data.events[0] as Row;
}

/** An EUR workspace whose Stripe key for `mode` (and webhook signing secret) serves checkout and debit. */
async function stripeWorkspace(app = t, fake = stripe, mode: 'test' | 'live' = 'test') {
  const ws = await newWorkspace(app, { currency: 'EUR' });
  const setting = await setProviderKey(app, ws.workspaceId, {
    provider: 'stripe',
    mode,
    secretKey: fake.secretKey,
    webhookSecret: fake.webhookSecret,
    rails: 'checkout,debit',
    ...(mode === 'live' ? { approved: true } : {}),
  });
  return { ...ws, setting };
}

/** A Stripe mandate for three monthly debits, the payer sent to Stripe's setup-mode Checkout after our consent. */
async function mandateAtStripe(api: Client, app = t, amount = 30_000) {
  const { plan, schedule } = await threeMonthlyDebits(api, amount);
  const created = await api.post('/payment-mandates', {
    payer_type: 'customer',
    provider: 'stripe',
    schedule_id: schedule.id,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const address = payerAddress();
  const hosted = await consentToProvider(app, created.body.data.consent_url, address);
  return { plan, schedule, mandate: created.body.data, hosted, address };
}

/** The payer saves a card (or, with `sepa_debit`, a SEPA account) on Stripe's page and comes back. */
async function activeMandate(api: Client, method: 'card' | 'sepa_debit' = 'card', app = t) {
  const at = await mandateAtStripe(api, app);
  const field: [string, string] = method === 'card' ? ['action', 'authorize'] : ['method', 'sepa_debit'];
  const back = await onProviderPage(app, at.hosted, field, at.address);
  assert.equal(back.statusCode, 200, back.body);
  return at;
}

/** An attempt charged on its due date with `outcome` at Stripe. */
async function chargedWith(outcome: StripeChargeOutcome | null, method: 'card' | 'sepa_debit' = 'card') {
  const ws = await stripeWorkspace();
  const at = await activeMandate(ws.api, method);
  if (outcome) stripe.nextCharge(outcome);
  await advanceTo(ws.api, DUE);
  const [attempt] = await attemptsOf(ws.api, at.schedule.id);
  assert.ok(attempt);
  return { ...ws, ...at, attempt };
}

/** A plan whose one obligation (25 Jan) is paid through a checkout page, made by Stripe on the due date. */
async function dueCheckout(amount = 20_000) {
  const ws = await stripeWorkspace();
  const customer = await newCustomer(ws.api, { email: 'ada@example.com' });
  const plan = await newTrack(ws.api, { customerId: customer.id, amount: 2 * amount });
  const schedule = await newSchedule(ws.api, {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'one_time',
    fixed_amount: amount,
    start_date: '2028-01-25T09:00:00Z',
    collection_method: 'gatewayA_checkout',
  });
  await advanceTo(ws.api, DUE);
  const [obligation] = (await ws.api.get(`/collection-schedules/${schedule.id}/obligations`)).body.data.items;
  assert.ok(obligation?.checkout_url?.startsWith(`${stripe.url}/c/pay/cs_`), JSON.stringify(obligation));
  const sessionId = new URL(obligation.checkout_url).pathname.split('/').pop() as string;
  return { ...ws, plan, schedule, sessionId, amount };
}

describe('Stripe: mandates, charges and refunds against a local fake of its API', () => {
  test("a mandate goes from our consent page through Stripe's setup-mode Checkout to active, with the card's summary", async () => {
    const { api } = await stripeWorkspace();
    const { mandate, hosted, address } = await mandateAtStripe(api);
    assert.ok(hosted.startsWith(`${stripe.url}/c/pay/cs_`), hosted);
    const session = stripe.sessions.get(hosted.split('/').pop() as string);
    assert.equal(session?.mode, 'setup');
    const waiting = await getMandate(api, mandate.id);
    assert.equal(waiting.status, 'pending');
    assert.ok(waiting.consented_at);
    assert.equal(waiting.provider_reference, null);

    const back = await onProviderPage(t, hosted, ['action', 'authorize'], address);
    assert.equal(back.statusCode, 200, back.body);
    assert.match(back.body, /You approved automatic payments/);
    const active = await getMandate(api, mandate.id);
    assert.equal(active.status, 'active');
    assert.match(active.provider_reference, /^pm_/);
    assert.deepEqual(active.payment_method, { type: 'card', bank: 'visa', last4: '4242' });
  });

  test('a SEPA account saved on Stripe makes an active mandate with its bank code and last four digits', async () => {
    const { api } = await stripeWorkspace();
    const { mandate } = await activeMandate(api, 'sepa_debit');
    const active = await getMandate(api, mandate.id);
    assert.equal(active.status, 'active');
    assert.match(active.provider_reference, /^pm_/);
    assert.deepEqual(active.payment_method, { type: 'sepa_debit', bank: '37040044', last4: '4242' });
  });

  test("a payer who cancels on Stripe's page leaves the mandate pending and consented, and can continue", async () => {
    const { api } = await stripeWorkspace();
    const { mandate, hosted, address } = await mandateAtStripe(api);
    const back = await onProviderPage(t, hosted, ['action', 'cancel'], address);
    assert.equal(back.statusCode, 200);
    assert.match(back.body, /Continue to Stripe/);
    const still = await getMandate(api, mandate.id);
    assert.equal(still.status, 'pending');
    assert.ok(still.consented_at);
    assert.equal(still.provider_reference, null);
  });

  test('an attempt is charged off-session with the attempt id as idempotency key and metadata, and paid', async () => {
    const { api, schedule, plan, attempt } = await chargedWith(null);
    assert.equal(attempt.status, 'succeeded', JSON.stringify(attempt));
    assert.match(attempt.provider_reference, /^pi_/);
    const [request] = stripe.requests.filter(
      (r) => r.path === '/v1/payment_intents' && (r.body.metadata as Row)?.attempt_id === attempt.id,
    );
    assert.equal(request?.idempotencyKey, attempt.id);
    assert.equal(request?.body.off_session, 'true');
    assert.equal(request?.body.amount, '30000');
    assert.equal(request?.body.currency, 'eur');
    assert.deepEqual(chargesAt(stripe, attempt.id), { requests: 1, intents: 1 });
    const payment = (await api.get(`/payments/${attempt.payment_id}`)).body.data;
    assert.equal(payment.source, 'provider');
    assert.equal(payment.provider, 'stripe');
    assert.equal(payment.providerReference, attempt.provider_reference);
    assert.equal(await balanceOf(api, plan.id), 60_000);
    assert.equal((await attemptsOf(api, schedule.id)).length, 1);
  });

  test('a SEPA debit left processing succeeds by webhook delivered three times: one payment', async () => {
    const { api, setting, schedule, plan, attempt } = await chargedWith(null, 'sepa_debit');
    assert.equal(attempt.status, 'processing');
    assert.match(attempt.provider_reference, /^pi_/);
    const [webhook] = await stripe.settleDebit(attempt.provider_reference, 'success');
    for (let i = 0; i < 3; i++) {
      const event = await delivered(setting, webhook as SignedWebhook);
      assert.equal(event.type, 'payment_intent.succeeded');
      assert.equal(event.replayed, i > 0);
    }
    const [paid] = await attemptsOf(api, schedule.id);
    assert.equal(paid?.status, 'succeeded');
    assert.equal((await paymentsOf(api, plan.id)).length, 1);
    assert.equal(await balanceOf(api, plan.id), 60_000);
  });

  test('a refund asked of Stripe keeps the payment recorded until refund.updated says succeeded', async () => {
    const { api, setting, plan, attempt } = await chargedWith(null);
    const asked = await api.post(`/payments/${attempt.payment_id}/reverse`, {
      refund: true,
      reason: 'Returned',
    });
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    assert.equal(asked.body.data.status, 'recorded');
    assert.equal(asked.body.data.refund.status, 'pending');
    const refundId = asked.body.data.refund.providerReference as string;
    assert.equal(stripe.refunds.get(refundId)?.payment_intent, attempt.provider_reference);
    assert.equal(await balanceOf(api, plan.id), 60_000);
    for (const webhook of await stripe.settleRefund(refundId, 'succeeded')) await delivered(setting, webhook);
    const refunded = (await api.get(`/payments/${attempt.payment_id}`)).body.data;
    assert.equal(refunded.status, 'reversed');
    assert.equal(refunded.refund.status, 'succeeded');
    assert.equal(await balanceOf(api, plan.id), 90_000);
    assert.equal((await eventsOf(api, 'payment.refunded')).length, 1);
  });
});

describe("Stripe: each failure in the adapter's table, retried or not", () => {
  const retried = (code: string, normalised: string) => ({ code, normalised, retry: true });
  const notRetried = (code: string, normalised: string) => ({ code, normalised, retry: false });

  /** Card declines, answered at once (402 with decline_code). */
  const declines = [
    retried('insufficient_funds', 'insufficient_funds'),
    retried('card_velocity_exceeded', 'insufficient_funds'),
    retried('processing_error', 'provider_unavailable'),
    retried('try_again_later', 'provider_unavailable'),
    retried('issuer_not_available', 'provider_unavailable'),
    notRetried('expired_card', 'account_closed'),
    notRetried('stolen_card', 'account_closed'),
    notRetried('generic_decline', 'declined'),
    notRetried('do_not_honor', 'declined'),
    notRetried('incorrect_cvc', 'declined'),
  ];
  for (const { code, normalised, retry } of declines) {
    test(`card decline ${code} → ${normalised}, ${retry ? 'retried' : 'not retried'}`, async () => {
      const { api, schedule, attempt } = await chargedWith({ decline: code });
      assert.equal(attempt.status, 'failed', JSON.stringify(attempt));
      assert.equal(attempt.failure_code, normalised);
      assert.equal(attempt.provider_failure_code, code);
      assertRetry(attempt, retry);
      assert.equal((await attemptsOf(api, schedule.id)).length, retry ? 2 : 1);
    });
  }

  test("a decline_code the table lacks (call_issuer) is a plain decline that keeps Stripe's decline_code", async () => {
    // Stripe answers code card_declined with the issuer's reason in decline_code: the reason is the raw code.
    const { attempt } = await chargedWith({ decline: 'call_issuer' });
    assert.equal(attempt.status, 'failed');
    assert.equal(attempt.failure_code, 'declined');
    assert.equal(attempt.no_retry_reason, 'not_retryable');
    assert.equal(attempt.provider_failure_code, 'call_issuer');
  });

  /** SEPA debits returned by the bank days later: payment_intent.payment_failed. */
  const returned = [
    retried('insufficient_funds', 'insufficient_funds'),
    notRetried('account_closed', 'account_closed'),
    notRetried('bank_account_restricted', 'mandate_revoked'),
    notRetried('debit_not_authorized', 'mandate_revoked'),
    notRetried('revocation_of_authorization', 'mandate_revoked'),
  ];
  for (const { code, normalised, retry } of returned) {
    test(`SEPA debit returned with ${code} (by webhook) → ${normalised}, ${retry ? 'retried' : 'not retried'}`, async () => {
      const { api, setting, schedule, attempt } = await chargedWith(null, 'sepa_debit');
      assert.equal(attempt.status, 'processing');
      const [webhook] = await stripe.settleDebit(attempt.provider_reference, 'failed', code);
      const event = await delivered(setting, webhook as SignedWebhook);
      assert.equal(event.type, 'payment_intent.payment_failed');
      const [failed] = await attemptsOf(api, schedule.id);
      assert.equal(failed?.status, 'failed', JSON.stringify(failed));
      assert.equal(failed?.failure_code, normalised);
      assert.equal(failed?.provider_failure_code, code);
      assertRetry(failed as Row, retry);
    });
  }

  function assertRetry(attempt: Row, retry: boolean) {
    if (retry) {
      assert.ok(attempt.next_retry_at, JSON.stringify(attempt));
      assert.equal(attempt.no_retry_reason, null);
    } else {
      assert.equal(attempt.next_retry_at, null);
      assert.equal(attempt.no_retry_reason, 'not_retryable');
    }
  }

  test('authentication_required (off-session 3-D Secure) is not retried, and its late payment_failed changes nothing', async () => {
    const { api, setting, schedule, attempt } = await chargedWith({ decline: 'authentication_required' });
    assert.equal(attempt.status, 'failed');
    assert.equal(attempt.failure_code, 'authentication_required');
    assert.equal(attempt.provider_failure_code, 'authentication_required');
    assert.equal(attempt.next_retry_at, null);
    assert.equal(attempt.no_retry_reason, 'not_retryable');
    // Stripe also sends payment_intent.payment_failed for the same decline.
    const intent = [...stripe.paymentIntents.values()].find((i) => i.metadata?.attempt_id === attempt.id);
    await delivered(setting, fakeEvent('payment_intent.payment_failed', intent?.id));
    const after = await attemptsOf(api, schedule.id);
    assert.equal(after.length, 1);
    assert.equal(after[0]?.failure_code, 'authentication_required');
    await advanceTo(api, '2028-02-01T00:00:00Z');
    assert.deepEqual(chargesAt(stripe, attempt.id), { requests: 1, intents: 1 });
    assert.equal((await attemptsOf(api, schedule.id)).length, 1);
  });
});

describe('Stripe: charges whose answer is late, lost or refused for load', () => {
  test('429 is provider_unavailable (rate_limit), retried a day later under a new attempt id, which succeeds', async () => {
    const { api, schedule, plan, attempt } = await chargedWith({ status: 429 });
    assert.equal(attempt.status, 'failed');
    assert.equal(attempt.failure_code, 'provider_unavailable');
    assert.equal(attempt.provider_failure_code, 'rate_limit');
    assert.ok(attempt.next_retry_at);
    assert.deepEqual(chargesAt(stripe, attempt.id), { requests: 1, intents: 0 });
    await advanceTo(api, attempt.next_retry_at);
    const [, retry] = await attemptsOf(api, schedule.id);
    assert.equal(retry?.status, 'succeeded', JSON.stringify(retry));
    assert.deepEqual(chargesAt(stripe, retry?.id), { requests: 1, intents: 1 });
    assert.equal((await paymentsOf(api, plan.id)).length, 1);
  });

  test('a timeout leaves the attempt processing; reconciliation finds the charge: succeeded, one charge, one payment', async () => {
    const { api, schedule, plan, attempt } = await chargedWith('timeout');
    assert.equal(attempt.status, 'processing', JSON.stringify(attempt));
    assert.ok(await reconcileAt(attempt.id));
    assert.equal(attempt.provider_reference, null);
    assert.equal(attempt.payment_id, null);
    await pastReconcile(api);
    const [settled] = await attemptsOf(api, schedule.id);
    assert.equal(settled?.status, 'succeeded', JSON.stringify(settled));
    assert.match(settled?.provider_reference, /^pi_/);
    assert.equal(await reconcileAt(attempt.id), null);
    assert.ok(stripe.requests.some((r) => r.path === '/v1/payment_intents/search'));
    assert.deepEqual(chargesAt(stripe, attempt.id), { requests: 1, intents: 1 });
    const payments = await paymentsOf(api, plan.id);
    assert.equal(payments.length, 1);
    assert.equal(payments[0].providerReference, settled?.provider_reference);
    assert.equal(await balanceOf(api, plan.id), 60_000);
  });

  test('a 500 leaves the charge unknown; reconciliation finds none at Stripe and charges once under the same key', async () => {
    const { api, schedule, plan, attempt } = await chargedWith({ status: 500 });
    assert.equal(attempt.status, 'processing', JSON.stringify(attempt));
    assert.ok(await reconcileAt(attempt.id));
    await pastReconcile(api);
    const [settled] = await attemptsOf(api, schedule.id);
    assert.equal(settled?.status, 'succeeded', JSON.stringify(settled));
    assert.deepEqual(chargesAt(stripe, attempt.id), { requests: 2, intents: 1 });
    assert.ok(
      stripe.requests
        .filter(
          (r) => r.path === '/v1/payment_intents' && (r.body.metadata as Row)?.attempt_id === attempt.id,
        )
        .every((r) => r.idempotencyKey === attempt.id),
    );
    assert.equal((await paymentsOf(api, plan.id)).length, 1);
  });
});

describe('Stripe: webhooks out of order, repeated, forged or about unknown money', () => {
  test("payment_intent.succeeded arriving before the timed-out charge's answer is reconciled, twice: one payment", async () => {
    const { api, setting, schedule, plan, attempt } = await chargedWith('timeout');
    assert.equal(attempt.status, 'processing');
    const intent = [...stripe.paymentIntents.values()].find((i) => i.metadata?.attempt_id === attempt.id);
    const webhook = fakeEvent('payment_intent.succeeded', intent?.id);
    assert.equal((await delivered(setting, webhook)).replayed, false);
    assert.equal((await delivered(setting, webhook)).replayed, true);
    await pastReconcile(api);
    const [settled] = await attemptsOf(api, schedule.id);
    assert.equal(settled?.status, 'succeeded');
    assert.equal(settled?.provider_reference, intent?.id);
    assert.deepEqual(chargesAt(stripe, attempt.id), { requests: 1, intents: 1 });
    assert.equal((await paymentsOf(api, plan.id)).length, 1);
    assert.equal(await balanceOf(api, plan.id), 60_000);
  });

  test('a processing debit settled by a success delivered twice, then its stale processing event, then reconciliation: one payment', async () => {
    const { api, setting, schedule, plan, attempt } = await chargedWith(null, 'sepa_debit');
    assert.equal(attempt.status, 'processing');
    const stale = fakeEvent('payment_intent.processing', attempt.provider_reference);
    const [success] = await stripe.settleDebit(attempt.provider_reference, 'success');
    await delivered(setting, success as SignedWebhook);
    await delivered(setting, success as SignedWebhook);
    await delivered(setting, stale);
    await pastReconcile(api);
    const [settled] = await attemptsOf(api, schedule.id);
    assert.equal(settled?.status, 'succeeded');
    assert.deepEqual(chargesAt(stripe, attempt.id), { requests: 1, intents: 1 });
    assert.equal((await paymentsOf(api, plan.id)).length, 1);
    assert.equal(await balanceOf(api, plan.id), 60_000);
  });

  test('a forged Stripe-Signature and a stale one (signed 6 minutes ago) are 401 and change nothing', async () => {
    const { api, setting, schedule, attempt } = await chargedWith(null, 'sepa_debit');
    const [webhook] = (await stripe.settleDebit(attempt.provider_reference, 'success')) as SignedWebhook[];
    const t0 = Math.floor(Date.now() / 1000);
    const forged = await deliver(t, setting.id, {
      body: webhook!.body,
      headers: { 'Stripe-Signature': `t=${t0},v1=${'ab'.repeat(32)}` },
    });
    assert.equal(forged.statusCode, 401, forged.body);
    assert.equal(JSON.parse(forged.body).error.code, 'unauthorized');
    const stale = await deliver(t, setting.id, {
      body: webhook!.body,
      headers: stripe.sign(webhook!.body, new Date(Date.now() - 6 * MINUTE_MS)),
    });
    assert.equal(stale.statusCode, 401, stale.body);
    const unsigned = await deliver(t, setting.id, { body: webhook!.body, headers: {} });
    assert.equal(unsigned.statusCode, 401, unsigned.body);
    assert.equal((await attemptsOf(api, schedule.id))[0]?.status, 'processing');
    // Nothing was kept of it: the genuine delivery is the first one.
    assert.equal((await delivered(setting, webhook!)).replayed, false);
    assert.equal((await attemptsOf(api, schedule.id))[0]?.status, 'succeeded');
  });

  test('money for a checkout paytrack never made is one unapplied payment (unknown_reference), evented', async () => {
    const { api, setting } = await stripeWorkspace();
    const reference = `chk_${randomBytes(16).toString('base64url')}`;
    const session = await stripeApi('/v1/checkout/sessions', {
      mode: 'payment',
      'line_items[0][quantity]': '1',
      'line_items[0][price_data][currency]': 'eur',
      'line_items[0][price_data][unit_amount]': '12345',
      'line_items[0][price_data][product_data][name]': 'Made elsewhere',
      'metadata[checkout_reference]': reference,
      'payment_intent_data[metadata][checkout_reference]': reference,
      success_url: 'https://example.com/done',
    });
    const webhooks = await stripe.payCheckout(session.id);
    for (const webhook of [...webhooks, ...webhooks]) await delivered(setting, webhook);
    const unapplied = (await api.get('/payments?unapplied=true')).body.data.items as Row[];
    assert.equal(unapplied.length, 1, JSON.stringify(unapplied));
    assert.equal(unapplied[0]?.amount, 12_345);
    assert.equal(unapplied[0]?.unapplied, true);
    assert.equal(unapplied[0]?.unappliedReason, 'unknown_reference');
    assert.equal(unapplied[0]?.provider, 'stripe');
    assert.equal((await eventsOf(api, 'payment.unapplied')).length, 1);
  });
});

describe('Stripe: checkout pages paid once', () => {
  for (const order of ['payment_intent.succeeded first', 'checkout.session.completed first'] as const) {
    test(`a card checkout is one payment, its two events each delivered three times (${order})`, async () => {
      const { api, setting, plan, schedule, sessionId, amount } = await dueCheckout();
      const webhooks = await stripe.payCheckout(sessionId);
      assert.deepEqual(
        webhooks.map((w) => JSON.parse(w.body).type),
        ['payment_intent.succeeded', 'checkout.session.completed'],
      );
      const ordered = order === 'payment_intent.succeeded first' ? webhooks : [...webhooks].reverse();
      for (let i = 0; i < 3; i++) for (const webhook of ordered) await delivered(setting, webhook);
      const payments = await paymentsOf(api, plan.id);
      assert.equal(payments.length, 1, JSON.stringify(payments));
      assert.equal(payments[0].method, 'gateway_checkout');
      assert.equal(payments[0].provider, 'stripe');
      assert.match(payments[0].providerReference, /^pi_/);
      assert.equal(payments[0].amount, amount);
      assert.equal(await balanceOf(api, plan.id), amount);
      const [obligation] = (await api.get(`/collection-schedules/${schedule.id}/obligations`)).body.data
        .items;
      assert.equal(obligation.status, 'paid');
    });
  }

  test('a SEPA checkout completed unpaid is paid once async_payment_succeeded and payment_intent.succeeded come', async () => {
    const { api, setting, plan, sessionId, amount } = await dueCheckout();
    const started = await stripe.payCheckout(sessionId, { type: 'sepa_debit' });
    for (const webhook of started) await delivered(setting, webhook);
    assert.equal((await paymentsOf(api, plan.id)).length, 0);
    const intentId = stripe.sessions.get(sessionId)?.payment_intent as string;
    const settled = await stripe.settleDebit(intentId, 'success');
    for (const webhook of [...settled].reverse()) await delivered(setting, webhook);
    for (const webhook of settled) await delivered(setting, webhook);
    const payments = await paymentsOf(api, plan.id);
    assert.equal(payments.length, 1, JSON.stringify(payments));
    assert.equal(payments[0].providerReference, intentId);
    assert.equal(await balanceOf(api, plan.id), amount);
  });
});

describe('Stripe: refunds answered out of order or refused', () => {
  test('a refund event before its payment is 503 and kept nowhere; delivered again after the payment, it is handled', async () => {
    const { api, setting, plan, sessionId, amount } = await dueCheckout();
    const paid = await stripe.payCheckout(sessionId);
    const intentId = stripe.sessions.get(sessionId)?.payment_intent as string;
    // The business refunds in Stripe's Dashboard; Stripe's refund event overtakes the payment's.
    const refund = await stripeApi('/v1/refunds', { payment_intent: intentId });
    const [refundUpdated] = await stripe.settleRefund(refund.id, 'succeeded');
    const early = await deliver(t, setting.id, refundUpdated as SignedWebhook);
    assert.equal(early.statusCode, 503, early.body);
    assert.equal((await paymentsOf(api, plan.id)).length, 0);

    for (const webhook of paid) await delivered(setting, webhook);
    assert.equal(await balanceOf(api, plan.id), amount);
    const again = await delivered(setting, refundUpdated as SignedWebhook);
    assert.equal(again.outcome, 'handled', JSON.stringify(again));
    assert.equal(again.replayed, false);
    const [payment] = await paymentsOf(api, plan.id);
    assert.equal(payment.status, 'reversed');
    assert.equal(payment.refund.status, 'succeeded');
    assert.equal(payment.refund.providerReference, refund.id);
    assert.equal(await balanceOf(api, plan.id), 2 * amount);
    assert.equal((await eventsOf(api, 'payment.refunded')).length, 1);
  });

  test('a refund Stripe fails leaves the payment recorded, refund failed with its reason, evented once', async () => {
    const { api, setting, plan, attempt } = await chargedWith(null);
    const asked = await api.post(`/payments/${attempt.payment_id}/reverse`, { refund: true });
    assert.equal(asked.body.data.refund.status, 'pending', JSON.stringify(asked.body));
    const refundId = asked.body.data.refund.providerReference as string;
    const webhooks = await stripe.settleRefund(refundId, 'failed');
    assert.deepEqual(
      webhooks.map((w) => JSON.parse(w.body).type),
      ['refund.updated', 'refund.failed'],
    );
    for (const webhook of webhooks) await delivered(setting, webhook);
    const payment = (await api.get(`/payments/${attempt.payment_id}`)).body.data;
    assert.equal(payment.status, 'recorded');
    assert.equal(payment.refund.status, 'failed');
    assert.equal(payment.refund.failureReason, 'expired_or_canceled_card');
    assert.equal(await balanceOf(api, plan.id), 60_000);
    assert.equal((await eventsOf(api, 'payment.refund_failed')).length, 1);
  });

  test('refund.created (pending) delivered after refund.failed does not bring the refund back to pending', async () => {
    const { api, setting, attempt } = await chargedWith(null);
    const asked = await api.post(`/payments/${attempt.payment_id}/reverse`, { refund: true });
    const refundId = asked.body.data.refund.providerReference as string;
    const created = fakeEvent('refund.created', refundId);
    assert.equal(JSON.parse(created.body).data.object.status, 'pending');
    for (const webhook of await stripe.settleRefund(refundId, 'failed')) await delivered(setting, webhook);
    await delivered(setting, created);
    const payment = (await api.get(`/payments/${attempt.payment_id}`)).body.data;
    assert.equal(payment.refund.status, 'failed', JSON.stringify(payment.refund));
    assert.equal(payment.refund.failureReason, 'expired_or_canceled_card');
  });
});

describe('Stripe: a live-mode workspace', () => {
  test('with a live key and --approved, an attempt on real time is charged with the live key and paid', async () => {
    const liveFake = await startStripeFake({
      secretKey: `sk_live_${randomBytes(16).toString('hex')}`,
      webhookSecret: `whsec_${randomBytes(24).toString('base64url')}`,
    });
    const lt = await liveProviderApp({ stripe: liveFake.url }, NOW);
    try {
      const { live } = await stripeWorkspace(lt, liveFake, 'live');
      const { schedule, plan, mandate } = await activeMandate(live, 'card', lt);
      assert.equal((await getMandate(live, mandate.id)).status, 'active');
      // Live mode runs on the app's clock; the worker's sweeps run as they would on the due date.
      lt.clock.set(new Date(DUE));
      await runSweepsNow(lt.ctx, { mode: 'live', now: lt.clock.now() });
      const [attempt] = await attemptsOf(live, schedule.id);
      assert.equal(attempt?.status, 'succeeded', JSON.stringify(attempt));
      assert.deepEqual(chargesAt(liveFake, attempt?.id), { requests: 1, intents: 1 });
      const payment = (await live.get(`/payments/${attempt?.payment_id}`)).body.data;
      assert.equal(payment.provider, 'stripe');
      assert.equal(payment.providerReference, attempt?.provider_reference);
      assert.equal(await balanceOf(live, plan.id), 60_000);
    } finally {
      await lt.close();
      await liveFake.close();
    }
  });
});
