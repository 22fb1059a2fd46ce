import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { runSweepsNow } from '../../src/jobs/sweeps.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp, withCharge } from '../helpers/app.js';
import { cliEnv, cliJson } from '../helpers/cli.js';
import { consent } from '../helpers/consent.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';

const NOW = '2028-01-20T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

/** A workspace with provider settings for gatewayA and a collection attempt left processing (the charge in flight). */
async function chargeInFlight(api: Client, workspaceId: string) {
  const setting = await cliJson(
    cliEnv(t.database),
    'provider',
    'set',
    '--workspace',
    workspaceId,
    '--provider',
    'gatewayA',
    '--mode',
    'test',
    '--json',
  );
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

function send(settingId: string, secret: string, body: Record<string, unknown>, signature?: string) {
  const raw = JSON.stringify(body);
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/provider-notifications/${settingId}`,
    headers: {
      'content-type': 'application/json',
      'x-provider-signature': signature ?? createHmac('sha256', secret).update(raw).digest('hex'),
    },
    payload: raw,
  });
}

const notification = (reference: string, overrides: Record<string, unknown> = {}) => ({
  id: `ntf_${Math.random().toString(36).slice(2)}`,
  type: 'charge.succeeded',
  reference,
  amount: 20_000,
  currency: 'NGN',
  occurred_at: '2028-01-25T00:00:05Z',
  ...overrides,
});

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

    const transfer = await send(
      setting.id,
      setting.notification_secret,
      notification('0123456789', { type: 'transfer.received' }),
    );
    assert.equal(transfer.statusCode, 200);
    assert.equal(JSON.parse(transfer.body).data.outcome, 'unmatched');

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
    const notJson = await t.app.inject({
      method: 'POST',
      url: `/api/v1/provider-notifications/${setting.id}`,
      headers: { 'content-type': 'application/json', 'x-provider-signature': 'a'.repeat(64) },
      payload: '{"id":',
    });
    assert.equal(notJson.statusCode, 400);
    assert.equal(JSON.parse(notJson.body).error.code, 'invalid_json');
  });

  test('gatewayB schedules get a virtual account; a transfer to it is a payment, once, and what the plan cannot take is refused', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const env = cliEnv(t.database);
    const gatewayB = await cliJson(
      env,
      'provider',
      'set',
      '--workspace',
      workspaceId,
      '--provider',
      'gatewayB',
      '--mode',
      'test',
      '--json',
    );
    const gatewayA = await cliJson(
      env,
      'provider',
      'set',
      '--workspace',
      workspaceId,
      '--provider',
      'gatewayA',
      '--mode',
      'test',
      '--json',
    );
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

    const tooMuch = await send(
      gatewayB.id,
      gatewayB.notification_secret,
      notification(account.number, { type: 'transfer.received', amount: 40_000 }),
    );
    assert.equal(JSON.parse(tooMuch.body).data.outcome, 'refused');
    assert.match(JSON.parse(tooMuch.body).data.reason, /more than the plan's remaining balance/);
    const dollars = await send(
      gatewayB.id,
      gatewayB.notification_secret,
      notification(account.number, { type: 'transfer.received', currency: 'USD' }),
    );
    assert.equal(JSON.parse(dollars.body).data.outcome, 'refused');
    const wrongProvider = await send(
      gatewayA.id,
      gatewayA.notification_secret,
      notification(account.number, { type: 'transfer.received' }),
    );
    assert.equal(JSON.parse(wrongProvider.body).data.outcome, 'unmatched');
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 30_000);
  });

  test('gatewayA checkout: a due obligation gets a checkout page whose pay button pays it once; checkout.completed counts once', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const gatewayA = await cliJson(
      cliEnv(t.database),
      'provider',
      'set',
      '--workspace',
      workspaceId,
      '--provider',
      'gatewayA',
      '--mode',
      'test',
      '--json',
    );
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
    // More than the plan owes is refused, and the checkout stays open.
    const tooMuch = await send(
      gatewayA.id,
      gatewayA.notification_secret,
      notification(checkoutId, { type: 'checkout.completed', amount: 90_000 }),
    );
    assert.equal(JSON.parse(tooMuch.body).data.outcome, 'refused');
    assert.match(
      (await t.app.inject({ method: 'GET', url: new URL((await obligations())[1].checkout_url).pathname }))
        .body,
      /<button/,
    );
    const completed = notification(checkoutId, {
      type: 'checkout.completed',
      amount: 20_000,
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
    assert.equal(JSON.parse(again.body).data.outcome, 'already_recorded');
    payments = (await api.get(`/tracks/${plan.id}/payments`)).body.data.items;
    assert.equal(payments.length, 2);
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 0);
    assert.equal((await api.get(`/collection-schedules/${schedule.id}`)).body.data.status, 'completed');
  });
});
