import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';

// The workspace's contact policy: quiet hours in the customer's time zone, caps on automatic messages, the
// channels in order, and opt-outs; every message held back is logged with why.

const NOW = '2028-01-20T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const advanceTo = async (api: Client, to: string) => {
  const res = await api.post('/account/test-clock/advance', { to });
  assert.equal(res.status, 200, JSON.stringify(res.body));
};

/** A plan of one payment due 25 Jan 2028 with automatic reminders. */
async function remindedPlan(api: Client, customerId: string, title: string) {
  const plan = await newTrack(api, { customerId, amount: 100_000, title });
  const res = await api.post('/collection-schedules', {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'one_time',
    fixed_amount: 100_000,
    start_date: '2028-01-25T09:00:00Z',
    collection_method: 'reminder_only',
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return plan;
}

async function remindersOf(api: Client, customerId: string) {
  const res = await api.get(`/reminders?customerId=${customerId}&limit=100`);
  return [...res.body.data.items].reverse() as Record<string, any>[];
}

async function logsOf(api: Client, reminderId: string) {
  const res = await api.get(`/reminders/logs?reminderId=${reminderId}&limit=100`);
  return [...res.body.data.items].reverse() as Record<string, any>[];
}

async function lagos() {
  const ws = await newWorkspace(t, { timezone: 'Africa/Lagos', country: 'NG' });
  return ws.api;
}

describe('contact policy', () => {
  test('PATCH /account sets it, names each bad field, and null restores the defaults', async () => {
    const api = await lagos();
    const defaults = (await api.get('/account')).body.data.contactPolicy;
    assert.deepEqual(defaults, {
      quietHours: { start: '21:00', end: '08:00' },
      maxPerDay: 1,
      maxPerWeek: 3,
      channels: ['sms', 'whatsapp', 'email'],
    });
    const set = await api.patch('/account', { contactPolicy: { maxPerDay: 2, channels: ['email', 'sms'] } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body.data.contactPolicy, { ...defaults, maxPerDay: 2, channels: ['email', 'sms'] });
    const bad = await api.patch('/account', { contactPolicy: { maxPerDay: 5, maxPerWeek: 4 } });
    assert.equal(bad.status, 422);
    assert.ok(bad.body.error.details.fields['contactPolicy.maxPerWeek'], JSON.stringify(bad.body));
    const badTime = await api.patch('/account', {
      contactPolicy: { quietHours: { start: '25:00', end: '08:00' } },
    });
    assert.equal(badTime.status, 422);
    assert.equal((await api.get('/account')).body.data.contactPolicy.maxPerDay, 2);
    const reset = await api.patch('/account', { contactPolicy: null });
    assert.deepEqual(reset.body.data.contactPolicy, defaults);
  });

  test("quiet hours are the customer's: the same stage waits in Lagos and goes at once in New York", async () => {
    const api = await lagos();
    const ada = await newCustomer(api, { name: 'Ada' });
    const tunde = await newCustomer(api, { name: 'Tunde', timeZone: 'America/New_York' });
    assert.equal(tunde.timeZone, 'America/New_York');
    await remindedPlan(api, ada.id, 'Fridge');
    await remindedPlan(api, tunde.id, 'Freezer');
    // 22 Jan 00:00 in Lagos (21 Jan 23:00Z): 3 days before. 00:00 in Lagos is quiet; 18:00 in New York is not.
    await advanceTo(api, '2028-01-21T23:00:00Z');
    const [forAda] = await remindersOf(api, ada.id);
    const [forTunde] = await remindersOf(api, tunde.id);
    assert.equal(forAda?.status, 'queued');
    assert.equal(forAda?.sendAt, '2028-01-22T07:00:00.000Z');
    assert.equal(forTunde?.status, 'sent', JSON.stringify(forTunde));
    await advanceTo(api, '2028-01-22T07:00:00Z');
    assert.equal((await remindersOf(api, ada.id))[0]?.status, 'sent');
  });

  test('past the daily cap an automatic reminder is skipped, logged frequency_cap; one the business queues still goes', async () => {
    const api = await lagos();
    const ada = await newCustomer(api, { name: 'Ada' });
    await remindedPlan(api, ada.id, 'Fridge');
    await remindedPlan(api, ada.id, 'Television');
    await advanceTo(api, '2028-01-22T07:00:00Z');
    const reminders = await remindersOf(api, ada.id);
    assert.deepEqual(reminders.map((r) => r.status).sort(), ['sent', 'skipped']);
    const capped = reminders.find((r) => r.status === 'skipped');
    assert.equal(capped?.skipReason, 'frequency_cap');
    const [log] = await logsOf(api, capped?.id);
    assert.equal(log?.status, 'skipped');
    assert.equal(log?.skipReason, 'frequency_cap');

    const queued = await api.post('/reminders', {
      customerId: ada.id,
      channel: 'sms',
      message: 'Please call us',
    });
    await api.post('/reminders/send', { reminderIds: [queued.body.data.id] });
    await t.worker.drain();
    const [sent] = await logsOf(api, queued.body.data.id);
    assert.equal(sent?.status, 'simulated');
    assert.ok(sent?.deliveredAt, 'test mode simulates a receipt saying delivered');
  });

  test('STOP stops the automatic reminders on that channel: skipped, logged opted_out', async () => {
    const api = await lagos();
    await api.patch('/account', { contactPolicy: { channels: ['sms'] } });
    const ada = await newCustomer(api, { name: 'Ada' });
    await remindedPlan(api, ada.id, 'Fridge');
    const stop = await api.post('/account/test-messages/inbound', {
      customerId: ada.id,
      channel: 'sms',
      text: 'STOP',
    });
    assert.equal(stop.status, 201, JSON.stringify(stop.body));
    await advanceTo(api, '2028-01-22T07:00:00Z');
    const [reminder] = await remindersOf(api, ada.id);
    assert.equal(reminder?.status, 'skipped');
    assert.equal(reminder?.skipReason, 'opted_out');
    const [log] = await logsOf(api, reminder?.id);
    assert.equal(log?.skipReason, 'opted_out');
    const business = await api.post('/reminders', { customerId: ada.id, channel: 'sms', message: 'Hello' });
    await api.post('/reminders/send', { reminderIds: [business.body.data.id] });
    await t.worker.drain();
    assert.equal(
      (await logsOf(api, business.body.data.id))[0]?.skipReason,
      'opted_out',
      'an opt-out holds for the business too',
    );
  });
});
