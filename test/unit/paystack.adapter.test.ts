import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import {
  type LiveProviderAdapter,
  ProviderCallError,
  type ProviderEvent,
  WebhookSignatureError,
} from '../../src/ports/live-provider.js';
import { createPaystackAdapter } from '../../src/ports/paystack/adapter.js';
import { PAYSTACK_FAILURES } from '../../src/ports/paystack/failures.js';
import { type PaystackFake, type SentWebhook, startPaystackFake } from '../fakes/paystack.js';

const NOW = new Date('2026-11-26T12:00:00Z');

async function setup(t: TestContext, timeoutMs = 5_000) {
  const fake = await startPaystackFake();
  t.after(() => fake.close());
  const adapter = createPaystackAdapter(
    { secretKey: fake.secretKey, webhookSecret: null, apiUrl: fake.url },
    { timeoutMs },
  );
  return { fake, adapter };
}

const parse = (adapter: LiveProviderAdapter, webhooks: SentWebhook[]): ProviderEvent[] =>
  webhooks.flatMap((w) => adapter.parseWebhook({ body: w.body, headers: w.headers }, NOW));

const authorizationRequest = {
  mandateId: 'man_01JDQ3',
  payerName: 'Ada Obi',
  payerEmail: 'ada@example.com',
  amount: 150_000,
  currency: 'NGN',
  returnUrl: 'https://paytrack.example/consent/tok/return',
  cancelUrl: 'https://paytrack.example/consent/tok',
};

/** An active direct debit authorization: its code is what charges take. */
async function authorized(fake: PaystackFake, adapter: LiveProviderAdapter): Promise<string> {
  const started = await adapter.startAuthorization(authorizationRequest);
  await fake.completeAuthorization(started.providerReference);
  const state = await adapter.checkAuthorization(started.providerReference);
  assert.equal(state.status, 'active');
  return state.status === 'active' ? state.providerReference : '';
}

const chargeRequest = (authorization: string, attemptId = 'att_01JDQ4XYZ', amount = 150_000) => ({
  attemptId,
  authorization,
  customerReference: null,
  payerEmail: 'ada@example.com',
  amount,
  currency: 'NGN',
});

test('authorization: the hosted page completes it, then it is active with the bank and last four digits', async (t) => {
  const { fake, adapter } = await setup(t);
  const started = await adapter.startAuthorization(authorizationRequest);
  assert.ok(started.url.startsWith(`${fake.url}/authorize/`));
  // Not completed yet: Paystack answers it as not found, which is still pending for us.
  assert.deepEqual(await adapter.checkAuthorization(started.providerReference), { status: 'pending' });

  const page = await fetch(started.url);
  const html = await page.text();
  assert.match(html, /<html lang="en">/);
  assert.match(html, /<main>/);
  assert.match(html, /<h1>Authorize direct debit<\/h1>/);
  const done = await fetch(started.url, {
    method: 'POST',
    body: new URLSearchParams({ action: 'authorize' }),
    redirect: 'manual',
  });
  assert.equal(done.status, 303);
  assert.equal(done.headers.get('location'), authorizationRequest.returnUrl);

  const state = await adapter.checkAuthorization(started.providerReference);
  assert.equal(state.status, 'active');
  assert.ok(state.status === 'active');
  assert.match(state.providerReference, /^AUTH_/);
  assert.match(state.customerReference ?? '', /^CUS_/);
  assert.deepEqual(state.paymentMethod, { type: 'direct_debit', bank: 'Test Bank', last4: '1234' });
  const initialize = fake.requests.find((r) => r.path === '/customer/authorization/initialize');
  assert.deepEqual(initialize?.body, {
    email: 'ada@example.com',
    channel: 'direct_debit',
    callback_url: authorizationRequest.returnUrl,
  });
});

test('authorization: its webhook asks the app to check the request it started', async (t) => {
  const { fake, adapter } = await setup(t);
  const started = await adapter.startAuthorization(authorizationRequest);
  const webhooks = await fake.completeAuthorization(started.providerReference, {
    bank: 'Guaranty Trust Bank',
    last4: '6789',
  });
  const [event] = parse(adapter, webhooks);
  assert.equal(event?.kind, 'mandate.check');
  assert.ok(event?.kind === 'mandate.check');
  assert.equal(event.providerType, 'direct_debit.authorization.active');
  assert.equal(event.providerReference, started.providerReference);
  const state = await adapter.checkAuthorization(event.providerReference);
  assert.ok(state.status === 'active');
  assert.deepEqual(state.paymentMethod, { type: 'direct_debit', bank: 'Guaranty Trust Bank', last4: '6789' });
});

test('charge: success, with our attempt id as the reference in the form Paystack accepts', async (t) => {
  const { fake, adapter } = await setup(t);
  const code = await authorized(fake, adapter);
  const result = await adapter.charge(chargeRequest(code));
  assert.deepEqual(result, { status: 'succeeded', providerReference: 'att.01JDQ4XYZ' });
  const sent = fake.requests.find((r) => r.path === '/transaction/charge_authorization')?.body as Record<
    string,
    unknown
  >;
  assert.equal(sent.reference, 'att.01JDQ4XYZ');
  assert.equal(sent.amount, 150_000);
  assert.equal(sent.authorization_code, code);
  assert.equal(typeof sent.metadata, 'string', 'charge_authorization takes metadata as stringified JSON');
});

test('charge: a bank debit is processing, then settles by webhook as charge.succeeded on the debit channel', async (t) => {
  const { fake, adapter } = await setup(t);
  const code = await authorized(fake, adapter);
  fake.nextCharge('processing');
  const result = await adapter.charge(chargeRequest(code));
  assert.deepEqual(result, { status: 'processing', providerReference: 'att.01JDQ4XYZ' });
  assert.deepEqual(await adapter.lookupCharge('att_01JDQ4XYZ'), result);

  const [event] = parse(adapter, await fake.settleDebit('att.01JDQ4XYZ', 'success'));
  assert.equal(event?.kind, 'charge.succeeded');
  assert.ok(event?.kind === 'charge.succeeded');
  assert.equal(event.channel, 'debit');
  assert.equal(event.reference, 'att_01JDQ4XYZ');
  assert.equal(event.providerReference, 'att.01JDQ4XYZ');
  assert.equal(event.amount, 150_000);
  assert.equal(event.currency, 'NGN');
  assert.match(event.eventId, /^charge\.success:\d+$/);
});

test('charge: a failed debit sends no webhook (Paystack sends none); lookupCharge finds it failed', async (t) => {
  const { fake, adapter } = await setup(t);
  const code = await authorized(fake, adapter);
  fake.nextCharge('processing');
  await adapter.charge(chargeRequest(code));
  assert.deepEqual(await fake.settleDebit('att.01JDQ4XYZ', 'failed'), []);
  const lookup = await adapter.lookupCharge('att_01JDQ4XYZ');
  assert.equal(lookup.status, 'failed');
  assert.ok(lookup.status === 'failed');
  assert.equal(lookup.code, 'insufficient_funds');
  assert.equal(lookup.retryable, true);
});

test('charge: every decline in the table maps to its code and retryability; others are final declines', async (t) => {
  const { fake, adapter } = await setup(t);
  const code = await authorized(fake, adapter);
  const declines = [
    ...Object.entries(PAYSTACK_FAILURES),
    ['Some New Bank Text', { code: 'declined', retryable: false }],
  ] as const;
  let n = 0;
  for (const [text, expected] of declines) {
    fake.nextCharge({ decline: text });
    const attemptId = `att_DECLINE${n++}`;
    const result = await adapter.charge(chargeRequest(code, attemptId));
    assert.equal(result.status, 'failed', text);
    assert.ok(result.status === 'failed');
    assert.equal(result.code, expected.code, text);
    assert.equal(result.retryable, expected.retryable, text);
    assert.equal(result.providerCode, text);
    assert.equal(result.providerReference, attemptId.replace('_', '.'));
  }
});

test('charge: an unknown or deactivated authorization is a revoked mandate, refused before any charge', async (t) => {
  const { fake, adapter } = await setup(t);
  const result = await adapter.charge(chargeRequest('AUTH_nosuchcode'));
  assert.equal(result.status, 'failed');
  assert.ok(result.status === 'failed');
  assert.equal(result.code, 'mandate_revoked');
  assert.equal(result.retryable, false);
  assert.equal(result.providerReference, null);
  assert.equal(fake.transactionsFor('att.01JDQ4XYZ'), 0);
});

test('charge: 429 is provider_unavailable, retryable, and nothing was charged', async (t) => {
  const { fake, adapter } = await setup(t);
  const code = await authorized(fake, adapter);
  fake.nextCharge({ status: 429 });
  const result = await adapter.charge(chargeRequest(code));
  assert.equal(result.status, 'failed');
  assert.ok(result.status === 'failed');
  assert.equal(result.code, 'provider_unavailable');
  assert.equal(result.retryable, true);
  assert.equal(result.providerReference, null);
  assert.equal(fake.transactionsFor('att.01JDQ4XYZ'), 0);
});

test('charge: a 500 is unknown; the lookup then finds no charge', async (t) => {
  const { fake, adapter } = await setup(t);
  const code = await authorized(fake, adapter);
  fake.nextCharge({ status: 500 });
  const result = await adapter.charge(chargeRequest(code));
  assert.equal(result.status, 'unknown');
  assert.deepEqual(await adapter.lookupCharge('att_01JDQ4XYZ'), { status: 'not_found' });
});

test('charge: a timeout is unknown; the lookup finds the one charge, and charging again reports it, never a second', async (t) => {
  const { fake, adapter } = await setup(t, 300);
  const code = await authorized(fake, adapter);
  fake.nextCharge('timeout');
  const result = await adapter.charge(chargeRequest(code));
  assert.equal(result.status, 'unknown');
  assert.deepEqual(await adapter.lookupCharge('att_01JDQ4XYZ'), {
    status: 'succeeded',
    providerReference: 'att.01JDQ4XYZ',
  });
  assert.equal(fake.transactionsFor('att.01JDQ4XYZ'), 1);
  assert.deepEqual(await adapter.charge(chargeRequest(code)), {
    status: 'succeeded',
    providerReference: 'att.01JDQ4XYZ',
  });
  assert.equal(fake.transactionsFor('att.01JDQ4XYZ'), 1);
});

test('lookup of a reference Paystack never saw is not_found', async (t) => {
  const { adapter } = await setup(t);
  assert.deepEqual(await adapter.lookupCharge('att_NEVER'), { status: 'not_found' });
  assert.deepEqual(await adapter.lookupCheckout('chk.never'), { status: 'not_found' });
});

test('checkout: paid on the hosted page, its webhook is charge.succeeded on the checkout channel', async (t) => {
  const { fake, adapter } = await setup(t);
  const ours = 'chk_Ab-c_D9';
  const checkout = await adapter.checkout({
    reference: ours,
    amount: 250_000,
    currency: 'NGN',
    payerEmail: 'ada@example.com',
    returnUrl: 'https://paytrack.example/checkout/return',
  });
  assert.equal(checkout.id, 'chk.Ab-c.D9');
  assert.ok(checkout.url.startsWith(`${fake.url}/checkout/`));
  assert.deepEqual(await adapter.lookupCheckout(checkout.id), {
    status: 'processing',
    providerReference: 'chk.Ab-c.D9',
  });

  const [event] = parse(adapter, await fake.payCheckout(checkout.id));
  assert.ok(event?.kind === 'charge.succeeded');
  assert.equal(event.channel, 'checkout');
  assert.equal(event.reference, ours);
  assert.equal(event.providerReference, checkout.id);
  assert.equal(event.amount, 250_000);
  assert.deepEqual(await adapter.lookupCheckout(checkout.id), {
    status: 'succeeded',
    providerReference: checkout.id,
    amount: 250_000,
    currency: 'NGN',
  });
});

test("checkout: the hosted page is a plain form and redirects with Paystack's trxref and reference", async (t) => {
  const { adapter } = await setup(t);
  const checkout = await adapter.checkout({
    reference: 'chk_page',
    amount: 1_000,
    currency: 'GHS',
    payerEmail: 'kofi@example.com',
    returnUrl: 'https://paytrack.example/checkout/return?x=1',
  });
  const html = await (await fetch(checkout.url)).text();
  assert.match(html, /<html lang="en">/);
  assert.match(html, /<h1>Pay Paytrack test business<\/h1>/);
  assert.match(html, /GHS 10\.00/);
  const paid = await fetch(checkout.url, {
    method: 'POST',
    body: new URLSearchParams({ action: 'pay' }),
    redirect: 'manual',
  });
  assert.equal(paid.status, 303);
  const location = new URL(paid.headers.get('location') ?? '');
  assert.equal(location.searchParams.get('trxref'), 'chk.page');
  assert.equal(location.searchParams.get('reference'), 'chk.page');
  assert.equal(location.searchParams.get('x'), '1');
  assert.equal((await adapter.lookupCheckout(checkout.id)).status, 'succeeded');
});

test('virtual account: a transfer to it is charge.succeeded on the virtual_account channel with its number', async (t) => {
  const { fake, adapter } = await setup(t);
  const account = await adapter.virtualAccount({
    reference: 'sch_01JDQ5',
    accountName: 'Ada Obi',
    payerEmail: 'ada@example.com',
    phone: '+2348012345678',
  });
  assert.equal(account.bank, 'Test Bank');
  assert.match(account.number, /^\d{10}$/);
  assert.equal(account.name, 'PAYTRACK/ADA OBI');
  const dva = fake.requests.find((r) => r.path === '/dedicated_account')?.body as Record<string, unknown>;
  assert.equal(dva.preferred_bank, 'test-bank');
  assert.match(String(dva.customer), /^CUS_/);

  const [event] = parse(adapter, await fake.transferToAccount(account.number, 500_000));
  assert.ok(event?.kind === 'charge.succeeded');
  assert.equal(event.channel, 'virtual_account');
  assert.equal(event.reference, account.number);
  assert.equal(event.amount, 500_000);
  assert.match(event.providerReference, /^T\d+/);
});

test('refund: pending, then its webhook says succeeded or failed for the refunded payment', async (t) => {
  const { fake, adapter } = await setup(t);
  const code = await authorized(fake, adapter);
  const charged = await adapter.charge(chargeRequest(code));
  assert.ok(charged.status === 'succeeded');
  const refund = await adapter.refund({
    paymentProviderReference: charged.providerReference,
    amount: 50_000,
    currency: 'NGN',
    idempotencyKey: 'pay_01JDQ6',
  });
  assert.equal(refund.status, 'pending');
  assert.match(refund.providerReference ?? '', /^\d+$/);
  const [done] = parse(adapter, await fake.settleRefund(refund.providerReference!, 'succeeded'));
  assert.ok(done?.kind === 'refund.succeeded');
  assert.equal(done.paymentProviderReference, charged.providerReference);
  assert.equal(done.failureReason, null);

  const second = await adapter.refund({
    paymentProviderReference: charged.providerReference,
    amount: 10_000,
    currency: 'NGN',
    idempotencyKey: 'pay_01JDQ7',
  });
  const [failed] = parse(adapter, await fake.settleRefund(second.providerReference!, 'failed'));
  assert.ok(failed?.kind === 'refund.failed');
  assert.equal(failed.paymentProviderReference, charged.providerReference);
  assert.notEqual(failed.eventId, done.eventId);
});

test('webhooks: a forged or missing signature is refused', async (t) => {
  const { fake, adapter } = await setup(t);
  const body = JSON.stringify({ event: 'charge.success', data: { id: 1, reference: 'x' } });
  const forged = startPaystackFake({ secretKey: 'sk_test_someoneelse' });
  const other = await forged;
  t.after(() => other.close());
  assert.throws(() => adapter.parseWebhook({ body, headers: other.sign(body) }, NOW), WebhookSignatureError);
  assert.throws(() => adapter.parseWebhook({ body, headers: {} }, NOW), WebhookSignatureError);
  const signed = fake.sign(body);
  assert.throws(
    () => adapter.parseWebhook({ body: `${body} `, headers: signed }, NOW),
    WebhookSignatureError,
    'the signature covers the raw body',
  );
  assert.doesNotThrow(() => adapter.parseWebhook({ body, headers: signed }, NOW));
});

test('webhooks: a redelivery has the same event id; other events differ; unknown events are ignored', async (t) => {
  const { fake, adapter } = await setup(t);
  const code = await authorized(fake, adapter);
  fake.nextCharge('processing');
  await adapter.charge(chargeRequest(code, 'att_A'));
  fake.nextCharge('processing');
  await adapter.charge(chargeRequest(code, 'att_B'));
  const [a] = await fake.settleDebit('att.A', 'success');
  const [b] = await fake.settleDebit('att.B', 'success');
  const first = adapter.parseWebhook({ body: a!.body, headers: a!.headers }, NOW)[0];
  const again = adapter.parseWebhook({ body: a!.body, headers: a!.headers }, new Date())[0];
  const other = adapter.parseWebhook({ body: b!.body, headers: b!.headers }, NOW)[0];
  assert.equal(first?.eventId, again?.eventId);
  assert.notEqual(first?.eventId, other?.eventId);

  const unknown = JSON.stringify({ event: 'subscription.create', data: { id: 7 } });
  const [ignored] = adapter.parseWebhook({ body: unknown, headers: fake.sign(unknown) }, NOW);
  assert.equal(ignored?.kind, 'ignored');
  assert.equal(ignored?.providerType, 'subscription.create');
});

test('the fake refuses a bad key (401) and a missing email (400) as Paystack does', async (t) => {
  const { fake } = await setup(t);
  const post = (key: string, body: unknown) =>
    fetch(`${fake.url}/transaction/initialize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const badKey = await post('sk_test_wrong', { email: 'a@example.com', amount: 100 });
  assert.equal(badKey.status, 401);
  assert.deepEqual(await badKey.json(), { status: false, message: 'Invalid key' });
  const noEmail = await post(fake.secretKey, { amount: 100 });
  assert.equal(noEmail.status, 400);
  assert.deepEqual(await noEmail.json(), {
    status: false,
    message: 'Email Address is required',
    meta: { nextStep: 'Provide all required params' },
    type: 'validation_error',
    code: 'missing_params',
  });

  const adapter = createPaystackAdapter({
    secretKey: 'sk_test_wrong',
    webhookSecret: null,
    apiUrl: fake.url,
  });
  await assert.rejects(
    adapter.checkout({
      reference: 'chk_x',
      amount: 100,
      currency: 'NGN',
      payerEmail: 'a@example.com',
      returnUrl: 'https://paytrack.example/r',
    }),
    (error: unknown) =>
      error instanceof ProviderCallError &&
      error.code === 'provider_unavailable' &&
      !error.retryable &&
      !error.message.includes('sk_test_wrong'),
  );
});
