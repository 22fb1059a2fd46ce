import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { threeMonthlyDebits } from '../helpers/collections.js';
import { newWorkspace } from '../helpers/factories.js';
import { consentToProvider, getMandate } from '../helpers/live-providers.js';

// Test mode's Paystack and Stripe without a sandbox key: the simulator follows the real flows (hosted
// authorization, asynchronous debits, refunds), all on this server.

const NOW = '2028-01-20T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const advanceTo = (api: Client, to: string) => api.post('/account/test-clock/advance', { to });

async function attemptsOf(api: Client, scheduleId: string) {
  const res = await api.get(`/collection-attempts?schedule_id=${scheduleId}&limit=100`);
  return [...res.body.data.items].reverse() as Record<string, any>[];
}

/** The simulator's hosted page, answered as a payer; returns our return page's answer. */
async function onSimulatorPage(hosted: string, action: 'authorize' | 'decline' | 'cancel') {
  const path = new URL(hosted).pathname;
  const shown = await t.app.inject({ method: 'GET', url: path });
  assert.equal(shown.statusCode, 200, shown.body);
  assert.match(shown.body, /simulated/);
  const answered = await t.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `action=${action}`,
  });
  assert.equal(answered.statusCode, 303, answered.body);
  const back = new URL(answered.headers.location as string);
  return t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}`, remoteAddress: '192.0.2.10' });
}

async function mandateFor(api: Client, provider: 'paystack' | 'stripe', amount: number) {
  const { plan, schedule } = await threeMonthlyDebits(api, amount);
  const created = await api.post('/payment-mandates', {
    payer_type: 'customer',
    provider,
    schedule_id: schedule.id,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const hosted = await consentToProvider(t, created.body.data.consent_url);
  return { plan, schedule, mandate: created.body.data, hosted };
}

describe('test mode simulates Paystack and Stripe without sandbox keys, in their flows', () => {
  for (const provider of ['paystack', 'stripe'] as const) {
    test(`${provider}: the payer authorises on the simulated hosted page; the mandate is active only then`, async () => {
      const { api } = await newWorkspace(t);
      const { mandate, hosted } = await mandateFor(api, provider, 30_000);
      assert.match(hosted, /\/simulator\/authorize\/sim_auth_man_/);
      assert.equal((await getMandate(api, mandate.id)).status, 'pending');
      const back = await onSimulatorPage(hosted, 'authorize');
      assert.equal(back.statusCode, 200);
      assert.match(back.body, /You approved automatic payments/);
      const active = await getMandate(api, mandate.id);
      assert.equal(active.status, 'active');
      assert.deepEqual(active.payment_method, {
        type: 'direct_debit',
        bank: 'Test Bank (simulated)',
        last4: '0000',
      });
    });
  }

  test('cancel leaves the mandate pending and resumable; decline fails it', async () => {
    const { api } = await newWorkspace(t);
    const cancelled = await mandateFor(api, 'stripe', 30_000);
    const back = await onSimulatorPage(cancelled.hosted, 'cancel');
    assert.match(back.body, /Authorisation not finished/);
    assert.equal((await getMandate(api, cancelled.mandate.id)).status, 'pending');

    const declined = await mandateFor(api, 'paystack', 30_000);
    const refused = await onSimulatorPage(declined.hosted, 'decline');
    assert.match(refused.body, /Not authorised/);
    const failed = await getMandate(api, declined.mandate.id);
    assert.equal(failed.status, 'failed');
    assert.match(failed.failure_reason, /not authorised at the provider/);
  });

  test('an amount ending in 15 is a bank debit: processing, then succeeded once asked a minute later', async () => {
    const { api } = await newWorkspace(t);
    const { schedule, hosted, plan } = await mandateFor(api, 'paystack', 30_015);
    await onSimulatorPage(hosted, 'authorize');
    await advanceTo(api, '2028-01-25T00:00:00Z');
    const [attempt] = await attemptsOf(api, schedule.id);
    assert.equal(attempt?.status, 'processing');
    assert.ok(attempt?.provider_reference);
    await advanceTo(api, '2028-01-25T00:03:00Z');
    const [settled] = await attemptsOf(api, schedule.id);
    assert.equal(settled?.status, 'succeeded', JSON.stringify(settled));
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 60_030);
  });

  test('an amount ending in 16 needs the payer: not retried, and a reminder with a pay link goes out', async () => {
    const { api } = await newWorkspace(t);
    const { schedule, hosted } = await mandateFor(api, 'stripe', 30_016);
    await onSimulatorPage(hosted, 'authorize');
    await advanceTo(api, '2028-01-25T00:00:00Z');
    const [attempt] = await attemptsOf(api, schedule.id);
    assert.equal(attempt?.status, 'failed');
    assert.equal(attempt?.failure_code, 'authentication_required');
    assert.equal(attempt?.no_retry_reason, 'not_retryable');
    const reminders = (await api.get(`/reminders?limit=10`)).body.data.items;
    const reminder = reminders.find(
      (r: { obligationId: string }) => r.obligationId === attempt?.obligation_id,
    );
    assert.ok(reminder, JSON.stringify(reminders));
    assert.match(reminder.message, /needs you to confirm it\. Pay here: http\S+\/checkout\/chk_/);
  });

  test('a refund through the simulator is confirmed at once: pending, then refunded and reversed', async () => {
    const { api } = await newWorkspace(t);
    const { schedule, hosted, plan } = await mandateFor(api, 'paystack', 30_000);
    await onSimulatorPage(hosted, 'authorize');
    await advanceTo(api, '2028-01-25T00:00:00Z');
    const [attempt] = await attemptsOf(api, schedule.id);
    const refunded = await api.post(`/payments/${attempt?.payment_id}/reverse`, { refund: true });
    assert.equal(refunded.status, 200, JSON.stringify(refunded.body));
    assert.equal(refunded.body.data.status, 'reversed');
    assert.equal(refunded.body.data.refund.status, 'succeeded');
    const receipt = await t.app.inject({
      method: 'GET',
      url: new URL(refunded.body.data.receipt.url).pathname,
    });
    assert.match(
      receipt.body,
      /Refunded on [^:]+: this payment was returned to the payer and no longer counts/,
    );
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 90_000);
    const types = (await api.get('/events?limit=50')).body.data.items.map((e: { type: string }) => e.type);
    assert.ok(types.includes('payment.refund_pending') && types.includes('payment.refunded'), types.join());

    const manual = await api.post('/payments', { trackId: plan.id, amount: 100, method: 'cash' });
    const refused = await api.post(`/payments/${manual.body.data.id}/reverse`, { refund: true });
    assert.equal(refused.status, 422);
    assert.ok(refused.body.error.details.fields.refund);
  });
});
