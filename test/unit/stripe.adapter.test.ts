import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type LiveProviderAdapter,
  ProviderCallError,
  type ProviderEvent,
  WebhookSignatureError,
} from '../../src/ports/live-provider.js';
import { createStripeAdapter } from '../../src/ports/stripe/adapter.js';
import { fromStripeAmount, toStripeAmount } from '../../src/ports/stripe/amounts.js';
import { type SignedWebhook, type StripeFake, startStripeFake } from '../fakes/stripe.js';

let fake: StripeFake;
let stripe: LiveProviderAdapter;
let counter = 0;
const uid = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${++counter}`;

before(async () => {
  fake = await startStripeFake();
  stripe = createStripeAdapter(
    { secretKey: fake.secretKey, webhookSecret: fake.webhookSecret, apiUrl: fake.url },
    { timeoutMs: 1_000 },
  );
});
after(() => fake.close());

const parse = (webhook: SignedWebhook, at = new Date()) =>
  stripe.parseWebhook({ body: webhook.body, headers: webhook.headers }, at);
const parseAll = (webhooks: SignedWebhook[]) => webhooks.flatMap((w) => parse(w));

async function authorizedCustomer(type: 'card' | 'sepa_debit' = 'card') {
  const mandateId = uid('mdt');
  const started = await stripe.startAuthorization({
    mandateId,
    payerName: 'Ada Obi',
    payerEmail: 'ada@example.com',
    amount: null,
    currency: 'EUR',
    returnUrl: 'https://pay.example.com/consent/tok/return',
    cancelUrl: 'https://pay.example.com/consent/tok',
  });
  await fake.completeAuthorization(started.providerReference, { type });
  const state = await stripe.checkAuthorization(started.providerReference);
  assert.equal(state.status, 'active');
  return state.status === 'active' ? state : assert.fail('not active');
}

const chargeWith = async (overrides: Partial<Parameters<LiveProviderAdapter['charge']>[0]> = {}) => {
  const customer = await authorizedCustomer();
  return stripe.charge({
    attemptId: uid('att'),
    authorization: customer.providerReference,
    customerReference: customer.customerReference,
    payerEmail: 'ada@example.com',
    amount: 2_500,
    currency: 'EUR',
    ...overrides,
  });
};

describe('Stripe authorization (Checkout in setup mode)', () => {
  test('the hosted page authorizes a SEPA debit, redirects with the session id, and the check is active', async () => {
    const started = await stripe.startAuthorization({
      mandateId: uid('mdt'),
      payerName: 'Ada Obi',
      payerEmail: 'ada@example.com',
      amount: 5_000,
      currency: 'EUR',
      returnUrl: 'https://pay.example.com/consent/tok/return',
      cancelUrl: 'https://pay.example.com/consent/tok',
    });
    assert.match(started.providerReference, /^cs_/);
    assert.deepEqual(await stripe.checkAuthorization(started.providerReference), { status: 'pending' });
    const created = fake.requests.find((r) => r.path === '/v1/checkout/sessions' && r.body.mode === 'setup');
    assert.equal(
      created?.body.success_url,
      'https://pay.example.com/consent/tok/return?session_id={CHECKOUT_SESSION_ID}',
    );
    assert.ok(created?.idempotencyKey);

    const html = await (await fetch(started.url)).text();
    assert.match(html, /<main>[\s\S]*<h1>/);
    const submitted = await fetch(started.url, {
      method: 'POST',
      body: new URLSearchParams({ method: 'sepa_debit', action: 'authorize' }),
      redirect: 'manual',
    });
    assert.equal(submitted.status, 303);
    assert.equal(
      submitted.headers.get('location'),
      `https://pay.example.com/consent/tok/return?session_id=${started.providerReference}`,
    );
    const state = await stripe.checkAuthorization(started.providerReference);
    assert.equal(state.status, 'active');
    if (state.status !== 'active') return;
    assert.match(state.providerReference, /^pm_/);
    assert.match(state.customerReference ?? '', /^cus_/);
    assert.deepEqual(state.paymentMethod, { type: 'sepa_debit', bank: '37040044', last4: '4242' });
  });

  test('a card authorization shows the brand as the bank; its webhook asks the app to check', async () => {
    const mandateId = uid('mdt');
    const started = await stripe.startAuthorization({
      mandateId,
      payerName: 'Ada Obi',
      payerEmail: 'ada@example.com',
      amount: null,
      currency: 'USD',
      returnUrl: 'https://pay.example.com/r?x=1',
      cancelUrl: 'https://pay.example.com/c',
    });
    const webhooks = await fake.completeAuthorization(started.providerReference, {
      bank: 'mastercard',
      last4: '4444',
    });
    const state = await stripe.checkAuthorization(started.providerReference);
    assert.deepEqual(state.status === 'active' && state.paymentMethod, {
      type: 'card',
      bank: 'mastercard',
      last4: '4444',
    });
    const checks = parseAll(webhooks).filter((e) => e.kind === 'mandate.check');
    assert.ok(
      checks.some((e) => e.kind === 'mandate.check' && e.providerReference === started.providerReference),
    );
    assert.ok(checks.every((e) => e.kind === 'mandate.check' && e.reference === mandateId));
  });
});

describe('Stripe charges', () => {
  test('a card charge succeeds with the attempt id as idempotency key and in metadata', async () => {
    const attemptId = uid('att');
    const result = await chargeWith({ attemptId });
    assert.equal(result.status, 'succeeded');
    const sent = fake.requests.find(
      (r) => r.path === '/v1/payment_intents' && r.idempotencyKey === attemptId,
    );
    assert.deepEqual(sent?.body.metadata, { attempt_id: attemptId });
    assert.equal(sent?.body.off_session, 'true');
    assert.equal(sent?.body.confirm, 'true');
    assert.equal(sent?.body.currency, 'eur');
  });

  test('a SEPA debit is processing until the bank settles it; the webhook says charge.succeeded', async () => {
    const customer = await authorizedCustomer('sepa_debit');
    const attemptId = uid('att');
    const result = await stripe.charge({
      attemptId,
      authorization: customer.providerReference,
      customerReference: customer.customerReference,
      payerEmail: 'ada@example.com',
      amount: 7_000,
      currency: 'EUR',
    });
    assert.equal(result.status, 'processing');
    const [event] = parseAll(await fake.settleDebit(attemptId, 'success'));
    assert.equal(event?.kind, 'charge.succeeded');
    if (event?.kind !== 'charge.succeeded') return;
    assert.equal(event.channel, 'debit');
    assert.equal(event.reference, attemptId);
    assert.equal(event.providerReference, result.status === 'processing' && result.providerReference);
    assert.equal(event.amount, 7_000);
    assert.equal(event.currency, 'EUR');
    assert.deepEqual(await stripe.lookupCharge(attemptId), {
      status: 'succeeded',
      providerReference: event.providerReference,
    });
  });

  test('a returned SEPA debit is charge.failed mapped from the PaymentIntent last_payment_error', async () => {
    const customer = await authorizedCustomer('sepa_debit');
    const attemptId = uid('att');
    await stripe.charge({
      attemptId,
      authorization: customer.providerReference,
      customerReference: customer.customerReference,
      payerEmail: 'ada@example.com',
      amount: 7_000,
      currency: 'EUR',
    });
    const events = parseAll(await fake.settleDebit(attemptId, 'failed', 'debit_not_authorized'));
    assert.deepEqual(
      events.map((e) => e.kind === 'charge.failed' && [e.reference, e.code, e.providerCode, e.retryable]),
      [[attemptId, 'mandate_revoked', 'debit_not_authorized', false]],
    );
  });

  const declines: [string, string, boolean][] = [
    ['insufficient_funds', 'insufficient_funds', true],
    ['generic_decline', 'declined', false],
    ['do_not_honor', 'declined', false],
    ['expired_card', 'account_closed', false],
    ['lost_card', 'account_closed', false],
    ['stolen_card', 'account_closed', false],
    ['authentication_required', 'authentication_required', false],
  ];
  for (const [declineCode, code, retryable] of declines) {
    test(`decline ${declineCode} is ${code}, ${retryable ? '' : 'not '}retryable`, async () => {
      fake.nextCharge({ decline: declineCode });
      const result = await chargeWith();
      assert.equal(result.status, 'failed');
      if (result.status !== 'failed') return;
      assert.equal(result.code, code);
      assert.equal(result.providerCode, declineCode);
      assert.equal(result.retryable, retryable);
      assert.match(result.providerReference ?? '', /^pi_/);
    });
  }

  test('429 is provider_unavailable and retryable', async () => {
    fake.nextCharge({ status: 429 });
    const result = await chargeWith();
    assert.deepEqual(result.status === 'failed' && [result.code, result.providerCode, result.retryable], [
      'provider_unavailable',
      'rate_limit',
      true,
    ]);
  });

  test('a 500 is unknown; nothing was recorded, so the lookup finds nothing and the same attempt id charges once', async () => {
    const customer = await authorizedCustomer();
    const request = {
      attemptId: uid('att'),
      authorization: customer.providerReference,
      customerReference: customer.customerReference,
      payerEmail: 'ada@example.com',
      amount: 1_000,
      currency: 'GBP',
    };
    fake.nextCharge({ status: 500 });
    assert.equal((await stripe.charge(request)).status, 'unknown');
    assert.deepEqual(await stripe.lookupCharge(request.attemptId), { status: 'not_found' });
    assert.equal((await stripe.charge(request)).status, 'succeeded');
  });

  test('a timeout is unknown; the lookup finds exactly one PaymentIntent for the attempt', async () => {
    const attemptId = uid('att');
    fake.nextCharge('timeout');
    const result = await chargeWith({ attemptId });
    assert.equal(result.status, 'unknown');
    const lookup = await stripe.lookupCharge(attemptId);
    assert.equal(lookup.status, 'succeeded');
    const intents = [...fake.paymentIntents.values()].filter((i) => i.metadata.attempt_id === attemptId);
    assert.equal(intents.length, 1);
    assert.equal(lookup.status === 'succeeded' && lookup.providerReference, intents[0]?.id);
  });

  test('the same attempt id replays the first PaymentIntent; other parameters with it are refused', async () => {
    const customer = await authorizedCustomer();
    const request = {
      attemptId: uid('att'),
      authorization: customer.providerReference,
      customerReference: customer.customerReference,
      payerEmail: 'ada@example.com',
      amount: 3_000,
      currency: 'EUR',
    };
    const first = await stripe.charge(request);
    const again = await stripe.charge(request);
    assert.deepEqual(again, first);
    const intents = [...fake.paymentIntents.values()].filter(
      (i) => i.metadata.attempt_id === request.attemptId,
    );
    assert.equal(intents.length, 1);
    assert.equal((await stripe.charge({ ...request, amount: 3_100 })).status, 'unknown');
  });
});

describe('Stripe amounts', () => {
  test('JPY is zero-decimal on both sides: sent unconverted', async () => {
    const attemptId = uid('att');
    assert.equal((await chargeWith({ attemptId, amount: 5_000, currency: 'JPY' })).status, 'succeeded');
    const sent = fake.requests.find((r) => r.idempotencyKey === attemptId);
    assert.equal(sent?.body.amount, '5000');
    assert.equal(sent?.body.currency, 'jpy');
  });

  test('USD below Stripe minimum is refused without calling Stripe', async () => {
    const customer = await authorizedCustomer();
    const before = fake.requests.length;
    const result = await stripe.charge({
      attemptId: uid('att'),
      authorization: customer.providerReference,
      customerReference: customer.customerReference,
      payerEmail: 'ada@example.com',
      amount: 49,
      currency: 'USD',
    });
    assert.deepEqual(result.status === 'failed' && [result.code, result.providerCode, result.retryable], [
      'declined',
      'amount_too_small',
      false,
    ]);
    assert.equal(fake.requests.length, before);
  });

  test('the fake refuses a USD amount below the minimum as Stripe does', async () => {
    const response = await fetch(`${fake.url}/v1/payment_intents`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${fake.secretKey}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'amount=49&currency=usd',
    });
    assert.equal(response.status, 400);
    const { error } = (await response.json()) as { error: Record<string, string> };
    assert.equal(error.type, 'invalid_request_error');
    assert.equal(error.code, 'amount_too_small');
    assert.equal(error.param, 'amount');
  });

  test('three-decimal KWD must end in 0: 5.125 KWD is refused, 5.120 KWD is sent as 5120', async () => {
    assert.deepEqual(toStripeAmount(5_120, 'KWD'), { ok: true, amount: 5_120 });
    assert.equal(toStripeAmount(5_125, 'KWD').ok, false);
    const refused = await chargeWith({ amount: 5_125, currency: 'KWD' });
    assert.equal(refused.status === 'failed' && refused.providerCode, 'amount_invalid');
    const attemptId = uid('att');
    assert.equal((await chargeWith({ attemptId, amount: 5_120, currency: 'KWD' })).status, 'succeeded');
    assert.equal(fake.requests.find((r) => r.idempotencyKey === attemptId)?.body.amount, '5120');
  });

  test('ISK and HUF (whole units in Intl) go to Stripe with two decimals; TWD keeps two; UGX stays zero-decimal', () => {
    assert.deepEqual(toStripeAmount(500, 'ISK'), { ok: true, amount: 50_000 });
    assert.equal(fromStripeAmount(50_000, 'ISK'), 500);
    assert.deepEqual(toStripeAmount(175, 'HUF'), { ok: true, amount: 17_500 });
    assert.equal(fromStripeAmount(17_500, 'HUF'), 175);
    assert.deepEqual(toStripeAmount(1_001, 'TWD'), { ok: true, amount: 1_001 });
    assert.deepEqual(toStripeAmount(5_000, 'UGX'), { ok: true, amount: 5_000 });
    assert.equal(toStripeAmount(0, 'USD').ok, false);
  });
});

describe('Stripe checkout (payment mode)', () => {
  test('paying yields charge.succeeded events for the checkout, all with the PaymentIntent id', async () => {
    const reference = uid('chk');
    const checkout = await stripe.checkout({
      reference,
      amount: 12_500,
      currency: 'EUR',
      payerEmail: 'ada@example.com',
      returnUrl: 'https://pay.example.com/checkout/x/return',
    });
    assert.deepEqual(await stripe.lookupCheckout(checkout.id), {
      status: 'unknown',
      message: 'The checkout is open: the payer has not paid yet.',
    });
    const sent = fake.requests.find(
      (r) => r.path === '/v1/checkout/sessions' && r.body.client_reference_id === reference,
    );
    assert.deepEqual(sent?.body.line_items, [
      {
        quantity: '1',
        price_data: { currency: 'eur', unit_amount: '12500', product_data: { name: 'Payment due' } },
      },
    ]);
    const events = parseAll(await fake.payCheckout(checkout.id));
    const succeeded = events.filter((e) => e.kind === 'charge.succeeded');
    assert.equal(succeeded.length, 2);
    const intentId = fake.sessions.get(checkout.id)?.payment_intent;
    for (const event of succeeded) {
      assert.deepEqual(
        event.kind === 'charge.succeeded' && [
          event.channel,
          event.reference,
          event.providerReference,
          event.amount,
        ],
        ['checkout', reference, intentId, 12_500],
      );
    }
    assert.deepEqual(await stripe.lookupCheckout(checkout.id), {
      status: 'succeeded',
      providerReference: intentId,
      amount: 12_500,
      currency: 'EUR',
    });
    assert.deepEqual(await stripe.lookupCheckout('cs_test_missing'), { status: 'not_found' });
  });

  test('a SEPA checkout is processing, then async_payment_succeeded and payment_intent.succeeded agree', async () => {
    const reference = uid('chk');
    const checkout = await stripe.checkout({
      reference,
      amount: 9_900,
      currency: 'EUR',
      payerEmail: 'ada@example.com',
      returnUrl: 'https://pay.example.com/r',
    });
    const processing = parseAll(await fake.payCheckout(checkout.id, { type: 'sepa_debit' }));
    assert.ok(processing.every((e) => e.kind === 'charge.processing'));
    const intentId = fake.sessions.get(checkout.id)?.payment_intent;
    assert.deepEqual(await stripe.lookupCheckout(checkout.id), {
      status: 'processing',
      providerReference: intentId,
    });
    const settled = parseAll(await fake.settleDebit(intentId, 'success'));
    assert.deepEqual(
      settled.map((e) => e.kind === 'charge.succeeded' && e.providerReference),
      [intentId, intentId],
    );
  });
});

describe('Stripe refunds', () => {
  test('a refund is pending, then its events say succeeded with the PaymentIntent as the payment reference', async () => {
    const charged = await chargeWith({ amount: 4_000 });
    const intentId = charged.status === 'succeeded' ? charged.providerReference : assert.fail('not charged');
    const paymentId = uid('pay');
    const refund = await stripe.refund({
      paymentProviderReference: intentId,
      amount: 1_500,
      currency: 'EUR',
      idempotencyKey: paymentId,
    });
    assert.equal(refund.status, 'pending');
    assert.equal(fake.requests.at(-1)?.idempotencyKey, `refund-${paymentId}`);
    const events = parseAll(await fake.settleRefund(refund.providerReference!, 'succeeded'));
    assert.deepEqual(
      events.map((e) => e.kind === 'refund.succeeded' && [e.paymentProviderReference, e.providerReference]),
      [[intentId, refund.providerReference]],
    );
    const failing = await stripe.refund({
      paymentProviderReference: intentId,
      amount: 500,
      currency: 'EUR',
      idempotencyKey: uid('pay'),
    });
    const failed = parseAll(await fake.settleRefund(failing.providerReference!, 'failed'));
    assert.deepEqual(
      failed.map((e) => e.kind),
      ['refund.failed', 'refund.failed'],
    );
    await assert.rejects(
      stripe.refund({
        paymentProviderReference: intentId,
        amount: 9_999,
        currency: 'EUR',
        idempotencyKey: uid('p'),
      }),
      (error: unknown) => error instanceof ProviderCallError && error.providerCode === 'amount_too_large',
    );
  });

  test('virtual accounts are not a Stripe rail', async () => {
    assert.equal(stripe.supports.has('virtual_account'), false);
    await assert.rejects(
      stripe.virtualAccount({
        reference: 'sch_1',
        accountName: 'A',
        payerEmail: 'a@example.com',
        phone: null,
      }),
      (error: unknown) => error instanceof ProviderCallError && !error.retryable,
    );
  });
});

describe('Stripe webhooks', () => {
  const eventBody = (type: string, object: Record<string, unknown>) =>
    JSON.stringify({
      id: uid('evt'),
      object: 'event',
      api_version: '2026-10-28.endive',
      created: Math.floor(Date.now() / 1000),
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    });

  test('a forged signature, a stale one (over 300 s), none, or no secret is a WebhookSignatureError', () => {
    const body = eventBody('payment_intent.succeeded', { id: 'pi_1', object: 'payment_intent' });
    const headers = fake.sign(body);
    // One hex digit of the signature changed (to another digit: a forged one never equals the real one).
    const forged = {
      ...headers,
      'Stripe-Signature': headers['Stripe-Signature']!.replace(
        /v1=(\w)/,
        (_m, d: string) => `v1=${d === '0' ? '1' : '0'}`,
      ),
    };
    assert.throws(() => stripe.parseWebhook({ body, headers: forged }, new Date()), WebhookSignatureError);
    assert.throws(
      () => stripe.parseWebhook({ body: `${body} `, headers }, new Date()),
      WebhookSignatureError,
    );
    const stale = fake.sign(body, new Date(Date.now() - 301_000));
    assert.throws(() => stripe.parseWebhook({ body, headers: stale }, new Date()), WebhookSignatureError);
    assert.throws(() => stripe.parseWebhook({ body, headers: {} }, new Date()), WebhookSignatureError);
    const noSecret = createStripeAdapter({
      secretKey: fake.secretKey,
      webhookSecret: null,
      apiUrl: fake.url,
    });
    assert.throws(() => noSecret.parseWebhook({ body, headers }, new Date()), WebhookSignatureError);
  });

  test('a well-signed event is read with its event id; one we do not handle is ignored', () => {
    const body = eventBody('customer.created', { id: 'cus_1', object: 'customer' });
    const headers = Object.fromEntries(Object.entries(fake.sign(body)).map(([k, v]) => [k.toLowerCase(), v]));
    const [event] = stripe.parseWebhook({ body, headers }, new Date()) as [ProviderEvent];
    assert.equal(event.kind, 'ignored');
    assert.equal(event.providerType, 'customer.created');
    assert.equal(event.eventId, JSON.parse(body).id);
  });
});

describe('Stripe call errors', () => {
  test('a wrong secret key is a ProviderCallError whose message does not quote the key', async () => {
    const wrong = createStripeAdapter({
      secretKey: 'sk_test_wrong_key_123',
      webhookSecret: null,
      apiUrl: fake.url,
    });
    await assert.rejects(
      wrong.checkout({
        reference: uid('chk'),
        amount: 1_000,
        currency: 'EUR',
        payerEmail: 'a@example.com',
        returnUrl: 'https://pay.example.com/r',
      }),
      (error: unknown) => error instanceof ProviderCallError && !error.message.includes('sk_test_wrong'),
    );
  });
});
