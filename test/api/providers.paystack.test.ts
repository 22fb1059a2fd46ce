import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type PaystackFake, startPaystackFake } from '../fakes/paystack.js';
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
  setProviderKey,
} from '../helpers/live-providers.js';

const NOW = '2028-01-20T12:00:00.000Z';

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

const advanceTo = (api: Client, to: string) => api.post('/account/test-clock/advance', { to });

async function attemptsOf(api: Client, scheduleId: string) {
  const res = await api.get(`/collection-attempts?schedule_id=${scheduleId}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return [...res.body.data.items].reverse() as Record<string, any>[];
}

/** A test-mode workspace with Paystack's sandbox key serving every rail. */
async function paystackWorkspace() {
  const ws = await newWorkspace(t);
  const setting = await setProviderKey(t, ws.workspaceId, {
    provider: 'paystack',
    mode: 'test',
    secretKey: paystack.secretKey,
    rails: 'checkout,virtual_account,debit',
  });
  return { ...ws, setting };
}

/** A Paystack mandate for three monthly debits, the payer sent to Paystack's page after our consent. */
async function mandateAtPaystack(api: Client, amount = 30_000) {
  const { plan, schedule } = await threeMonthlyDebits(api, amount);
  const created = await api.post('/payment-mandates', {
    payer_type: 'customer',
    provider: 'paystack',
    schedule_id: schedule.id,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const hosted = await consentToProvider(t, created.body.data.consent_url);
  return {
    plan,
    schedule,
    mandate: created.body.data,
    hosted,
    consentUrl: created.body.data.consent_url as string,
  };
}

async function activeMandate(api: Client, amount = 30_000) {
  const at = await mandateAtPaystack(api, amount);
  const back = await onProviderPage(t, at.hosted, ['action', 'authorize']);
  assert.equal(back.statusCode, 200, back.body);
  return at;
}

describe('Paystack: live adapter against a local fake of its API', () => {
  test('a mandate goes from our consent page to Paystack and back, active only once Paystack confirms', async () => {
    const { api } = await paystackWorkspace();
    const { mandate, hosted, consentUrl } = await mandateAtPaystack(api);
    assert.ok(hosted.startsWith(paystack.url), hosted);
    const waiting = await getMandate(api, mandate.id);
    assert.equal(waiting.status, 'pending');
    assert.ok(waiting.consented_at);
    assert.equal(waiting.provider_reference, null);

    // The link resumes the authorization while it is unfinished.
    const resumed = await t.app.inject({ method: 'GET', url: new URL(consentUrl).pathname });
    assert.equal(resumed.statusCode, 200);
    assert.match(resumed.body, /Finish authorising with Paystack/);

    const back = await onProviderPage(t, hosted, ['action', 'authorize']);
    assert.equal(back.statusCode, 200, back.body);
    assert.match(back.body, /You approved automatic payments/);
    const active = await getMandate(api, mandate.id);
    assert.equal(active.status, 'active');
    assert.match(active.provider_reference, /^AUTH_/);
    assert.equal(active.payment_method.type, 'direct_debit');
    assert.ok(active.payment_method.bank);
    assert.match(active.payment_method.last4 ?? '', /^\d{4}$/);
  });

  test('a payer who cancels on Paystack leaves the mandate pending, consented, and can resume', async () => {
    const { api } = await paystackWorkspace();
    const { mandate, hosted } = await mandateAtPaystack(api);
    const back = await onProviderPage(t, hosted, ['action', 'cancel']);
    assert.equal(back.statusCode, 200);
    assert.match(back.body, /Continue to Paystack/);
    const still = await getMandate(api, mandate.id);
    assert.equal(still.status, 'pending');
    assert.ok(still.consented_at);
  });

  test('an attempt is charged through Paystack with the attempt id as its reference, and paid', async () => {
    const { api } = await paystackWorkspace();
    const { schedule, plan } = await activeMandate(api);
    await advanceTo(api, '2028-01-25T00:00:00Z');
    const [attempt] = await attemptsOf(api, schedule.id);
    assert.equal(attempt?.status, 'succeeded', JSON.stringify(attempt));
    assert.ok(attempt?.provider_reference);
    assert.equal(paystack.transactionsFor(String(attempt?.id).replaceAll('_', '.')), 1);
    const payment = (await api.get(`/payments/${attempt?.payment_id}`)).body.data;
    assert.equal(payment.source, 'provider');
    assert.equal(payment.provider, 'paystack');
    assert.equal(payment.providerReference, attempt?.provider_reference);
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 60_000);
  });

  test('a bank debit left processing succeeds later by webhook, delivered three times and out of order', async () => {
    const { api, setting } = await paystackWorkspace();
    const { schedule, plan } = await activeMandate(api);
    paystack.nextCharge('processing');
    await advanceTo(api, '2028-01-25T00:00:00Z');
    const [attempt] = await attemptsOf(api, schedule.id);
    assert.equal(attempt?.status, 'processing');
    const webhooks = await paystack.settleDebit(String(attempt?.provider_reference), 'success');
    assert.equal(webhooks.length, 1);
    for (let i = 0; i < 3; i++) {
      const res = await deliver(
        t,
        setting.id,
        webhooks[0] as { body: string; headers: Record<string, string> },
      );
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(JSON.parse(res.body).data.events[0].replayed, i > 0);
    }
    const [paid] = await attemptsOf(api, schedule.id);
    assert.equal(paid?.status, 'succeeded');
    const payments = (await api.get(`/payments?trackId=${plan.id}`)).body.data.items;
    assert.equal(payments.length, 1);
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 60_000);
  });

  test('a forged signature is 401 and changes nothing', async () => {
    const { api, setting } = await paystackWorkspace();
    const { schedule } = await activeMandate(api);
    paystack.nextCharge('processing');
    await advanceTo(api, '2028-01-25T00:00:00Z');
    const [attempt] = await attemptsOf(api, schedule.id);
    const [webhook] = await paystack.settleDebit(String(attempt?.provider_reference), 'success');
    const forged = await deliver(t, setting.id, {
      body: webhook!.body,
      headers: { 'x-paystack-signature': 'ab'.repeat(64) },
    });
    assert.equal(forged.statusCode, 401, forged.body);
    assert.equal(JSON.parse(forged.body).error.code, 'unauthorized');
    assert.equal((await attemptsOf(api, schedule.id))[0]?.status, 'processing');
  });

  test('a transfer to a Paystack virtual account records one payment on its plan', async () => {
    const { api, setting } = await paystackWorkspace();
    const customer = await newCustomer(api, { email: 'ada@example.com' });
    const plan = await newTrack(api, { customerId: customer.id, amount: 90_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 30_000,
      start_date: '2028-01-25T09:00:00Z',
      end_date: '2028-03-25T09:00:00Z',
      collection_method: 'gatewayB_virtual_account',
    });
    assert.equal(schedule.virtual_account.bank, 'Test Bank');
    const webhooks = await paystack.transferToAccount(schedule.virtual_account.number, 30_000);
    for (const webhook of [...webhooks, ...webhooks]) {
      const res = await deliver(t, setting.id, webhook);
      assert.equal(res.statusCode, 200, res.body);
    }
    const payments = (await api.get(`/payments?trackId=${plan.id}`)).body.data.items;
    assert.equal(payments.length, 1);
    assert.equal(payments[0].method, 'virtual_account');
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 60_000);
  });

  test('a refund asked of Paystack leaves the payment recorded until Paystack confirms it', async () => {
    const { api, setting } = await paystackWorkspace();
    const { schedule, plan } = await activeMandate(api);
    await advanceTo(api, '2028-01-25T00:00:00Z');
    const [attempt] = await attemptsOf(api, schedule.id);
    const refund = await api.post(`/payments/${attempt?.payment_id}/reverse`, {
      refund: true,
      reason: 'Returned goods',
    });
    assert.equal(refund.status, 200, JSON.stringify(refund.body));
    assert.equal(refund.body.data.status, 'recorded');
    assert.equal(refund.body.data.refund.status, 'pending');
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 60_000);
    const webhooks = await paystack.settleRefund(
      String(attempt?.provider_reference).replaceAll('_', '.'),
      'succeeded',
    );
    for (const webhook of webhooks) assert.equal((await deliver(t, setting.id, webhook)).statusCode, 200);
    const refunded = (await api.get(`/payments/${attempt?.payment_id}`)).body.data;
    assert.equal(refunded.status, 'reversed');
    assert.equal(refunded.refund.status, 'succeeded');
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 90_000);
  });
});
