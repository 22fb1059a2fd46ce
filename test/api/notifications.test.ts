import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { runSweepsNow } from '../../src/jobs/sweeps.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp, withCharge } from '../helpers/app.js';
import { consent } from '../helpers/consent.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';
import { notification, notify, providerSetting } from '../helpers/providers.js';

const NOW = '2028-01-20T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

/** A workspace with provider settings for gatewayA and a collection attempt left processing (the charge in flight). */
async function chargeInFlight(api: Client, workspaceId: string) {
  const setting = await providerSetting(t, workspaceId, 'gatewayA');
  const customer = await newCustomer(api);
  const plan = await newTrack(api, { customerId: customer.id, amount: 60_000 });
  const schedule = (
    await api.post('/collection-schedules', {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 20_000,
      start_date: '2028-01-25T09:00:00Z',
      end_date: '2028-03-25T09:00:00Z',
      collection_method: 'auto_debit',
    })
  ).body.data;
  const mandate = (
    await api.post('/payment-mandates', {
      payer_type: 'customer',
      provider: 'gatewayA',
      schedule_id: schedule.id,
    })
  ).body.data;
  await consent(t, mandate.consent_url, 'approve');
  // A provider that takes the charge and answers later, by notification.
  const asynchronous = withCharge(t, () => Promise.reject(new Error('answered later, by notification')));
  await runSweepsNow(asynchronous, { mode: 'test', workspaceId, now: new Date('2028-01-25T00:00:00Z') });
  const attempt = (await api.get(`/collection-attempts?schedule_id=${schedule.id}`)).body.data.items[0];
  assert.equal(attempt.status, 'processing');
  return { setting, plan, attempt };
}

const send = (settingId: string, secret: string, body: Record<string, unknown>, signature?: string) =>
  notify(t, { id: settingId, notification_secret: secret }, body, signature);

describe('POST /provider-notifications/{settingId}', () => {
  test('delivered three times at once, a charge.succeeded records one payment; the replays say so', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const { setting, plan, attempt } = await chargeInFlight(api, workspaceId);
    const body = notification(attempt.id);
    const answers = await Promise.all(
      [1, 2, 3].map(() => send(setting.id, setting.notification_secret, body)),
    );
    for (const a of answers) assert.equal(a.statusCode, 200, a.body);
    const receipts = answers.map((a) => JSON.parse(a.body).data);
    assert.deepEqual(receipts.map((r) => r.replayed).sort(), [false, true, true]);
    assert.ok(receipts.every((r) => r.outcome === 'recorded' && r.payment_id === receipts[0].payment_id));
    const payments = (await api.get(`/tracks/${plan.id}/payments`)).body.data.items;
    assert.equal(payments.length, 1);
    assert.equal(payments[0].source, 'provider');
    assert.equal((await api.get(`/collection-attempts/${attempt.id}`)).body.data.status, 'succeeded');
    // A later delivery with a new id finds the attempt answered.
    const late = await send(setting.id, setting.notification_secret, notification(attempt.id));
    assert.equal(JSON.parse(late.body).data.outcome, 'already_recorded');
    assert.equal((await api.get(`/tracks/${plan.id}/payments`)).body.data.items.length, 1);
  });

  test('a bad or missing signature is 401 and changes nothing', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const { setting, plan, attempt } = await chargeInFlight(api, workspaceId);
    const body = notification(attempt.id);
    for (const signature of [
      '0'.repeat(64),
      'not-hex',
      createHmac('sha256', 'pns_wrong').update(JSON.stringify(body)).digest('hex'),
    ]) {
      const res = await send(setting.id, setting.notification_secret, body, signature);
      assert.equal(res.statusCode, 401);
      assert.equal(JSON.parse(res.body).error.code, 'unauthorized');
    }
    const unsigned = await t.app.inject({
      method: 'POST',
      url: `/api/v1/provider-notifications/${setting.id}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    assert.equal(unsigned.statusCode, 401);
    assert.equal((await api.get(`/collection-attempts/${attempt.id}`)).body.data.status, 'processing');
    assert.equal((await api.get(`/tracks/${plan.id}/payments`)).body.data.items.length, 0);
    // The same notification, rightly signed, still counts.
    assert.equal(
      JSON.parse((await send(setting.id, setting.notification_secret, body)).body).data.outcome,
      'recorded',
    );
  });

  test('charge.failed answers the attempt as failed; unknown references are kept as unmatched; bad requests are refused', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const { setting, attempt } = await chargeInFlight(api, workspaceId);
    const failed = await send(
      setting.id,
      setting.notification_secret,
      notification(attempt.id, { type: 'charge.failed', failure_code: 'R01' }),
    );
    assert.equal(JSON.parse(failed.body).data.outcome, 'recorded');
    const answered = (await api.get(`/collection-attempts/${attempt.id}`)).body.data;
    assert.equal(answered.status, 'failed');
    assert.equal(answered.failure_code, 'declined');
    assert.match(answered.failure_message, /R01/);
    assert.equal(answered.no_retry_reason, 'not_retryable');

    // Money to an account this workspace does not know is still money: recorded, unapplied, without a customer.
    const transfer = await send(
      setting.id,
      setting.notification_secret,
      notification('0123456789', { type: 'transfer.received' }),
    );
    assert.equal(transfer.statusCode, 200);
    const stray = JSON.parse(transfer.body).data;
    assert.deepEqual([stray.outcome, stray.reason], ['unapplied', 'unknown_reference']);
    const strayPayment = (await api.get(`/payments/${stray.payment_id}`)).body.data;
    assert.deepEqual(
      [strayPayment.trackId, strayPayment.customerId, strayPayment.amount, strayPayment.unapplied],
      [null, null, 20_000, true],
    );
    // A failure for an attempt nobody knows moves no money: unmatched.
    const strayFailure = await send(
      setting.id,
      setting.notification_secret,
      notification('att_01JD7ZE5F6G7H8J9K0M1N2P3Q4', { type: 'charge.failed' }),
    );
    assert.equal(JSON.parse(strayFailure.body).data.outcome, 'unmatched');

    const unknownSetting = await send(
      'prv_01JD7ZE5F6G7H8J9K0M1N2P3Q4',
      setting.notification_secret,
      notification(attempt.id),
    );
    assert.equal(unknownSetting.statusCode, 404);
    const missing = await send(setting.id, setting.notification_secret, {
      id: 'x',
      type: 'charge.succeeded',
    });
    assert.equal(missing.statusCode, 422);
    assert.ok(JSON.parse(missing.body).error.details.fields.reference);
    const notJson = (signature: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/provider-notifications/${setting.id}`,
        headers: { 'content-type': 'application/json', 'x-provider-signature': signature },
        payload: '{"id":',
      });
    const unsignedNotJson = await notJson('a'.repeat(64));
    assert.equal(unsignedNotJson.statusCode, 401);
    const signedNotJson = await notJson(
      createHmac('sha256', setting.notification_secret).update('{"id":').digest('hex'),
    );
    assert.equal(signedNotJson.statusCode, 400);
    assert.equal(JSON.parse(signedNotJson.body).error.code, 'invalid_json');
  });

  test('gatewayB schedules get a virtual account; a transfer to it is a payment, once, and what the plan cannot take is recorded as credit', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const gatewayB = await providerSetting(t, workspaceId, 'gatewayB');
    const gatewayA = await providerSetting(t, workspaceId, 'gatewayA');
    const customer = await newCustomer(api, { name: 'Bola Ade' });
    const plan = await newTrack(api, { customerId: customer.id, amount: 50_000 });
    const created = await api.post('/collection-schedules', {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 25_000,
      start_date: '2028-01-25T09:00:00Z',
      end_date: '2028-02-25T09:00:00Z',
      collection_method: 'gatewayB_virtual_account',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const account = created.body.data.virtual_account;
    assert.match(account.number, /^99\d{8}$/);
    assert.equal(account.name, 'Bola Ade');
    assert.ok(account.bank);
    assert.deepEqual(
      (await api.get(`/collection-schedules/${created.body.data.id}`)).body.data.virtual_account,
      account,
    );

    const transfer = notification(account.number, { type: 'transfer.received', amount: 20_000 });
    const answers = await Promise.all(
      [1, 2, 3].map(() => send(gatewayB.id, gatewayB.notification_secret, transfer)),
    );
    const receipts = answers.map((a) => JSON.parse(a.body).data);
    assert.ok(receipts.every((r) => r.outcome === 'recorded' && r.payment_id === receipts[0].payment_id));
    const payments = (await api.get(`/tracks/${plan.id}/payments`)).body.data.items;
    assert.equal(payments.length, 1);
    assert.equal(payments[0].method, 'virtual_account');
    assert.equal(payments[0].source, 'provider');
    assert.equal(payments[0].paidAt, '2028-01-25T00:00:05.000Z');
    assert.equal(payments[0].allocations[0].amount, 20_000);

    const dollars = await send(
      gatewayB.id,
      gatewayB.notification_secret,
      notification(account.number, { type: 'transfer.received', currency: 'USD' }),
    );
    assert.deepEqual(
      [JSON.parse(dollars.body).data.outcome, JSON.parse(dollars.body).data.reason],
      ['unapplied', 'currency_mismatch'],
    );
    const wrongProvider = await send(
      gatewayA.id,
      gatewayA.notification_secret,
      notification(account.number, { type: 'transfer.received' }),
    );
    assert.deepEqual(
      [JSON.parse(wrongProvider.body).data.outcome, JSON.parse(wrongProvider.body).data.reason],
      ['unapplied', 'unknown_reference'],
    );
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 30_000);
    // More than the balance: the plan takes its balance, the excess is the customer's credit.
    const tooMuch = await send(
      gatewayB.id,
      gatewayB.notification_secret,
      notification(account.number, { type: 'transfer.received', amount: 40_000 }),
    );
    assert.equal(JSON.parse(tooMuch.body).data.outcome, 'recorded');
    assert.match(JSON.parse(tooMuch.body).data.reason, /overpayment: 10000 more than was owed/);
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 0);
  });

  test('gatewayA checkout: a due obligation gets a checkout page whose pay button pays it once; checkout.completed counts once', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const gatewayA = await providerSetting(t, workspaceId, 'gatewayA');
    const plan = await newTrack(api, { amount: 40_000 });
    const schedule = (
      await api.post('/collection-schedules', {
        target_type: 'payment_plan',
        target_id: plan.id,
        frequency: 'monthly',
        fixed_amount: 20_000,
        start_date: '2028-01-25T09:00:00Z',
        end_date: '2028-02-25T09:00:00Z',
        collection_method: 'gatewayA_checkout',
      })
    ).body.data;
    const obligations = async () =>
      [...(await api.get(`/collection-schedules/${schedule.id}/obligations`)).body.data.items].reverse();
    assert.deepEqual(
      (await obligations()).map((o) => o.checkout_url),
      [null, null],
    );

    await api.post('/account/test-clock/advance', { to: '2028-01-25T00:00:00Z' });
    const [first, second] = await obligations();
    assert.match(first.checkout_url, /^http:\/\/localhost:\d+\/checkout\/chk_[A-Za-z0-9_-]{22}$/);
    assert.equal(second.checkout_url, null);
    const path = new URL(first.checkout_url).pathname;
    const shown = await t.app.inject({ method: 'GET', url: path });
    assert.equal(shown.statusCode, 200);
    assert.match(shown.body, /₦200\.00/);
    assert.match(shown.body, /<button[^>]*>Pay ₦200\.00<\/button>/);
    assert.doesNotMatch(shown.body, /<script/i);

    const forged = await t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      payload: '',
    });
    assert.equal(forged.statusCode, 403);
    const pay = () =>
      t.app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: '',
      });
    const paid = await pay();
    assert.equal(paid.statusCode, 200, paid.body);
    assert.match(paid.body, /<h1>Paid<\/h1>/);
    assert.match((await pay()).body, /Already paid/);
    let payments = (await api.get(`/tracks/${plan.id}/payments`)).body.data.items;
    assert.equal(payments.length, 1);
    assert.equal(payments[0].method, 'gateway_checkout');
    assert.equal(payments[0].source, 'provider');
    assert.equal((await obligations())[0].status, 'paid');

    await api.post('/account/test-clock/advance', { to: '2028-02-25T00:00:00Z' });
    const checkoutId = new URL((await obligations())[1].checkout_url).pathname.split('/').pop() as string;
    // Part of what it owes: recorded, and the checkout stays open for the rest.
    const part = await send(
      gatewayA.id,
      gatewayA.notification_secret,
      notification(checkoutId, { type: 'checkout.completed', amount: 5_000 }),
    );
    assert.equal(JSON.parse(part.body).data.outcome, 'recorded');
    assert.match(
      (await t.app.inject({ method: 'GET', url: new URL((await obligations())[1].checkout_url).pathname }))
        .body,
      /<button[^>]*>Pay ₦150\.00<\/button>/,
    );
    const completed = notification(checkoutId, {
      type: 'checkout.completed',
      amount: 15_000,
      occurred_at: '2028-02-25T00:00:05Z',
    });
    const receipts = await Promise.all(
      [1, 2].map(() => send(gatewayA.id, gatewayA.notification_secret, completed)),
    );
    assert.deepEqual(
      receipts.map((r) => JSON.parse(r.body).data.outcome),
      ['recorded', 'recorded'],
    );
    const again = await send(
      gatewayA.id,
      gatewayA.notification_secret,
      notification(checkoutId, { type: 'checkout.completed' }),
    );
    // Another report of money for a checkout already paid is more money: the plan is paid off, so it is credit.
    assert.deepEqual(
      [JSON.parse(again.body).data.outcome, JSON.parse(again.body).data.reason],
      ['unapplied', 'plan_closed'],
    );
    payments = (await api.get(`/tracks/${plan.id}/payments`)).body.data.items;
    assert.equal(payments.length, 3);
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 0);
    assert.equal((await api.get(`/collection-schedules/${schedule.id}`)).body.data.status, 'completed');
  });
});
