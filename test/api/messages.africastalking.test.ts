import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import {
  type AfricastalkingFake,
  type FakeCallback,
  startAfricastalkingFake,
} from '../fakes/africastalking.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newWorkspace } from '../helpers/factories.js';
import { SECRET_KEY } from '../helpers/live-providers.js';
import { logsOf, messagesEnv, remind as sendReminder, setMessageProvider } from '../helpers/messages.js';

// SMS reminders through Africa's Talking (its local fake): delivery reports and replies come unsigned to the
// callback URL, which carries the setting's token.

const NOW = '2028-01-20T12:00:00.000Z';
const PUBLIC_URL = 'https://pay.example.com';

let t: TestApp;
let at: AfricastalkingFake;
before(async () => {
  at = await startAfricastalkingFake();
  t = await buildTestApp({
    clock: new ManualClock(new Date(NOW)),
    env: { PAYTRACK_SECRET_KEY: SECRET_KEY, AFRICASTALKING_API_URL: at.url, PUBLIC_URL },
  });
});
after(async () => {
  await t.close();
  await at.close();
});

async function atWorkspace() {
  const ws = await newWorkspace(t, { country: 'KE' });
  const setting = await setMessageProvider(messagesEnv(t, PUBLIC_URL), ws.workspaceId, {
    provider: 'africastalking',
    credentials: { username: at.username, apiKey: at.apiKey },
    args: ['--sms-from', 'MAMAPUT'],
  });
  return { ...ws, setting };
}

const remind = (api: Client, body: Record<string, unknown>) => sendReminder(t, api, body);

/** Africa's Talking's callback, POSTed to the setting's callback URL (or `url`, for a forged one). */
function callback(cb: FakeCallback, url: string) {
  const target = new URL(url);
  return t.app.inject({
    method: 'POST',
    url: `${target.pathname}${target.search}`,
    headers: { 'content-type': cb.contentType, ...cb.headers },
    payload: cb.body,
  });
}

describe("Africa's Talking: SMS reminders, delivery reports and replies", () => {
  test('an SMS goes out with the sender ID, and its delivery report marks it delivered, once', async () => {
    const { api, setting } = await atWorkspace();
    const customer = await newCustomer(api, { phone: '+254712345678' });
    const reminder = await remind(api, {
      customerId: customer.id,
      channel: 'sms',
      message: 'Habari: your payment is due',
    });
    const [log] = await logsOf(api, reminder.id);
    assert.equal(log?.status, 'sent', JSON.stringify(log));
    assert.equal(log?.provider, 'africastalking');
    const sms = at.sent.find((s) => s.messageId === log?.providerMessageId);
    assert.equal(sms?.to, '+254712345678');
    assert.equal(sms?.from, 'MAMAPUT');
    const report = await at.deliver(log?.providerMessageId, 'delivered');
    assert.equal((await callback(report, setting.callbackUrl)).statusCode, 200);
    assert.equal((await callback(report, setting.callbackUrl)).json().data.events[0].outcome, 'duplicate');
    assert.equal((await logsOf(api, reminder.id))[0]?.status, 'delivered');
  });

  test('a failed report is undelivered with its reason; a wrong or missing token is 401 and changes nothing', async () => {
    const { api, setting } = await atWorkspace();
    const customer = await newCustomer(api, { phone: '+254712345679', email: 'wanjiru@example.com' });
    const reminder = await remind(api, { customerId: customer.id, channel: 'sms', message: 'Due today' });
    const [log] = await logsOf(api, reminder.id);
    const report = await at.deliver(log?.providerMessageId, 'undelivered', 'UserInBlacklist');
    const forged = await callback(report, at.sign(setting.callbackUrl, 'not-the-token'));
    assert.equal(forged.statusCode, 401, forged.body);
    const tokenless = await callback(report, at.sign(setting.callbackUrl, null));
    assert.equal(tokenless.statusCode, 401);
    assert.equal((await logsOf(api, reminder.id))[0]?.status, 'sent');
    assert.equal((await callback(report, setting.callbackUrl)).statusCode, 200);
    const [undelivered] = await logsOf(api, reminder.id);
    assert.equal(undelivered?.status, 'undelivered');
    assert.equal(undelivered?.providerErrorCode, 'UserInBlacklist');
  });

  test('a reply STOP opts the customer out of SMS', async () => {
    const { api, setting } = await atWorkspace();
    const customer = await newCustomer(api, { phone: '+254712345680' });
    const stop = await callback(await at.inbound(customer.phone, 'Stop'), setting.callbackUrl);
    assert.equal(stop.statusCode, 200, stop.body);
    assert.deepEqual((await api.get(`/customers/${customer.id}`)).body.data.optOuts, ['sms']);
  });
});
