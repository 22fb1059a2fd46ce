import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import { startTwilioFake, type TwilioCallback, type TwilioFake } from '../fakes/twilio.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';
import { SECRET_KEY } from '../helpers/live-providers.js';
import { logsOf, messagesEnv, remind as sendReminder, setMessageProvider } from '../helpers/messages.js';

// SMS and WhatsApp reminders through Twilio (its local fake), its delivery receipts, and customers' replies.

const NOW = '2028-01-20T12:00:00.000Z';

let t: TestApp;
let twilio: TwilioFake;
before(async () => {
  twilio = await startTwilioFake();
  t = await buildTestApp({
    clock: new ManualClock(new Date(NOW)),
    env: {
      PAYTRACK_SECRET_KEY: SECRET_KEY,
      TWILIO_API_URL: twilio.url,
      PUBLIC_URL: 'https://pay.example.com',
      PROVIDER_TIMEOUT_MS: '400',
    },
  });
});
after(async () => {
  await t.close();
  await twilio.close();
});

/** A workspace whose test-mode SMS and WhatsApp go through Twilio: `paytrack messages set`. */
async function twilioWorkspace() {
  const ws = await newWorkspace(t);
  const setting = await setMessageProvider(messagesEnv(t, 'https://pay.example.com'), ws.workspaceId, {
    provider: 'twilio',
    credentials: { accountSid: twilio.accountSid, authToken: twilio.authToken },
    args: ['--sms-from', twilio.smsFrom, '--whatsapp-from', twilio.whatsappFrom],
  });
  return { ...ws, setting };
}

const remind = (api: Client, body: Record<string, unknown>) => sendReminder(t, api, body);

/** Delivers a Twilio callback to our server as Twilio would. */
function callback(cb: TwilioCallback, headers: Record<string, string> = cb.headers) {
  const url = new URL(cb.url);
  return t.app.inject({
    method: 'POST',
    url: `${url.pathname}${url.search}`,
    headers: { 'content-type': cb.contentType, ...headers },
    payload: cb.body,
  });
}

describe('Twilio: reminders by SMS and WhatsApp, receipts and replies', () => {
  test('an SMS and a WhatsApp reminder go through Twilio, and its receipt marks them delivered', async () => {
    const { api, setting } = await twilioWorkspace();
    assert.match(
      setting.callbackUrl,
      /^https:\/\/pay\.example\.com\/api\/v1\/message-callbacks\/mst_\w+\?token=/,
    );
    const customer = await newCustomer(api, { email: 'ada@example.com' });
    for (const channel of ['sms', 'whatsapp'] as const) {
      const reminder = await remind(api, {
        customerId: customer.id,
        channel,
        message: `Hello by ${channel}`,
      });
      const [log] = await logsOf(api, reminder.id);
      assert.equal(log?.status, 'sent', JSON.stringify(log));
      assert.equal(log?.provider, 'twilio');
      const message = twilio.sent.find((m) => m.sid === log?.providerMessageId);
      assert.equal(message?.params.Body, `Hello by ${channel}`);
      assert.equal(
        message?.params.To,
        channel === 'whatsapp' ? `whatsapp:${customer.phone}` : customer.phone,
      );
      assert.equal(message?.params.StatusCallback, setting.callbackUrl);

      const receipt = await twilio.deliver(log?.providerMessageId, 'delivered');
      const answered = await callback(receipt);
      assert.equal(answered.statusCode, 200, answered.body);
      assert.equal((await callback(receipt)).json().data.events[0].outcome, 'duplicate');
      const [delivered] = await logsOf(api, reminder.id);
      assert.equal(delivered?.status, 'delivered');
      assert.ok(delivered?.deliveredAt);
    }
    const types = (await api.get('/events?limit=50')).body.data.items.map((e: { type: string }) => e.type);
    assert.equal(types.filter((type: string) => type === 'reminder.delivered').length, 2);
  });

  test('an undelivered SMS is logged with Twilio’s error code and falls back to e-mail once', async () => {
    const { api } = await twilioWorkspace();
    const customer = await newCustomer(api, { email: 'ada@example.com' });
    const reminder = await remind(api, {
      customerId: customer.id,
      channel: 'sms',
      message: 'Your payment is due',
    });
    const [log] = await logsOf(api, reminder.id);
    assert.equal(
      (await callback(await twilio.deliver(log?.providerMessageId, 'undelivered', '30003'))).statusCode,
      200,
    );
    const [undelivered] = await logsOf(api, reminder.id);
    assert.equal(undelivered?.status, 'undelivered');
    assert.equal(undelivered?.providerErrorCode, '30003');
    assert.match(undelivered?.error, /sent again by e-mail as rem_/);
    const reminders = (await api.get(`/reminders?customerId=${customer.id}`)).body.data.items;
    const email = reminders.find((r: { channel: string }) => r.channel === 'email');
    assert.ok(email, JSON.stringify(reminders));
    assert.equal(email.message, 'Your payment is due');
    const types = (await api.get('/events?limit=50')).body.data.items.map((e: { type: string }) => e.type);
    assert.ok(types.includes('reminder.undelivered'));
  });

  test('a forged or edited callback is 401 and changes nothing', async () => {
    const { api } = await twilioWorkspace();
    const customer = await newCustomer(api);
    const reminder = await remind(api, { customerId: customer.id, channel: 'sms', message: 'Hi' });
    const [log] = await logsOf(api, reminder.id);
    const receipt = await twilio.deliver(log?.providerMessageId, 'delivered');
    const forged = await callback(receipt, { 'x-twilio-signature': 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' });
    assert.equal(forged.statusCode, 401, forged.body);
    const edited = await callback({ ...receipt, body: receipt.body.replace('delivered', 'undelivered') });
    assert.equal(edited.statusCode, 401);
    assert.equal((await logsOf(api, reminder.id))[0]?.status, 'sent');
  });

  test('STOP opts the customer out of SMS at once, every later SMS is skipped opted_out, and START opts back in', async () => {
    const { api, setting } = await twilioWorkspace();
    const customer = await newCustomer(api);
    const reply = (text: string) =>
      twilio.inbound(customer.phone, text, 'sms', undefined, setting.callbackUrl);
    const stop = await callback(await reply('STOP'));
    assert.equal(stop.statusCode, 200, stop.body);
    assert.equal(stop.json().data.events[0].outcome, 'opt_out');
    assert.deepEqual((await api.get(`/customers/${customer.id}`)).body.data.optOuts, ['sms']);
    const skipped = await remind(api, { customerId: customer.id, channel: 'sms', message: 'Hi' });
    const listed = (await api.get(`/reminders?customerId=${customer.id}`)).body.data.items;
    const after = listed.find((r: { id: string }) => r.id === skipped.id);
    assert.equal(after.status, 'skipped');
    assert.equal(after.skipReason, 'opted_out');
    const sentBefore = twilio.sent.length;

    const answer = await callback(await reply('I will pay on Friday'));
    assert.equal(answer.json().data.events[0].outcome, 'none');
    const start = await callback(await reply('START'));
    assert.equal(start.json().data.events[0].outcome, 'opt_in');
    assert.deepEqual((await api.get(`/customers/${customer.id}`)).body.data.optOuts, []);
    await remind(api, { customerId: customer.id, channel: 'sms', message: 'Hi again' });
    assert.equal(twilio.sent.length, sentBefore + 1);

    const inbox = (await api.get(`/messages?customerId=${customer.id}`)).body.data.items;
    assert.deepEqual(
      inbox.map((m: { text: string; action: string }) => [m.text, m.action]),
      [
        ['START', 'opt_in'],
        ['I will pay on Friday', 'none'],
        ['STOP', 'opt_out'],
      ],
    );
    const types = (await api.get('/events?limit=50')).body.data.items.map((e: { type: string }) => e.type);
    assert.equal(types.filter((type: string) => type === 'message.received').length, 3);
  });

  test('in test mode a reply can be sent without a provider, and STOP acts the same', async () => {
    const { api, live } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const res = await api.post('/account/test-messages/inbound', {
      customerId: customer.id,
      channel: 'whatsapp',
      text: 'stop',
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.data.action, 'opt_out');
    assert.deepEqual((await api.get(`/customers/${customer.id}`)).body.data.optOuts, ['whatsapp']);
    const refused = await live.post('/account/test-messages/inbound', {
      customerId: customer.id,
      channel: 'sms',
      text: 'hi',
    });
    assert.equal(refused.status, 403);
  });

  test('a send whose answer timed out is retried without a second message: Twilio is asked first', async () => {
    const { api } = await twilioWorkspace();
    const customer = await newCustomer(api);
    twilio.nextSend('timeout');
    const before = twilio.sent.length;
    const reminder = await remind(api, { customerId: customer.id, channel: 'sms', message: 'Due on Friday' });
    const [first] = await logsOf(api, reminder.id);
    assert.equal(first?.status, 'failed', JSON.stringify(first));
    assert.equal(twilio.sent.length, before + 1, 'Twilio has the message all the same');
    const clock = (await api.get('/account/test-clock')).body.data.now;
    const advanced = await api.post('/account/test-clock/advance', {
      to: new Date(Date.parse(clock) + 2 * 60_000).toISOString(),
    });
    assert.equal(advanced.status, 200, JSON.stringify(advanced.body));
    await t.worker.drain();
    const logs = await logsOf(api, reminder.id);
    const retried = logs.find((log) => log.status === 'sent');
    assert.ok(retried, JSON.stringify(logs));
    assert.equal(retried.providerMessageId, twilio.sent[before]?.sid);
    assert.equal(twilio.sent.length, before + 1, 'no second message');
  });

  test('an automatic SMS that was not delivered still falls back to e-mail: the fallback is not one more message', async () => {
    const { api } = await twilioWorkspace();
    const customer = await newCustomer(api, { email: 'ada@example.com' });
    const plan = await newTrack(api, { customerId: customer.id, amount: 100_000, title: 'Fridge' });
    const schedule = await api.post('/collection-schedules', {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'one_time',
      fixed_amount: 100_000,
      start_date: '2028-01-25T09:00:00Z',
      collection_method: 'reminder_only',
    });
    assert.equal(schedule.status, 201, JSON.stringify(schedule.body));
    const advanced = await api.post('/account/test-clock/advance', { to: '2028-01-22T09:00:00Z' });
    assert.equal(advanced.status, 200, JSON.stringify(advanced.body));
    const [automatic] = (await api.get(`/reminders?customerId=${customer.id}`)).body.data.items;
    assert.equal(automatic?.channel, 'sms', JSON.stringify(automatic));
    const [log] = await logsOf(api, automatic.id);
    assert.equal(log?.status, 'sent', JSON.stringify(log));
    assert.equal(
      (await callback(await twilio.deliver(log?.providerMessageId, 'undelivered', '30005'))).statusCode,
      200,
    );
    await api.post('/reminders/send', {});
    await t.worker.drain();
    const email = (await api.get(`/reminders?customerId=${customer.id}`)).body.data.items.find(
      (r: { channel: string }) => r.channel === 'email',
    );
    assert.equal(email?.status, 'sent', JSON.stringify(email));
    assert.equal(email?.message, automatic.message);
  });
});
