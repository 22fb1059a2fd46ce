import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runSweepsNow } from '../../src/jobs/sweeps.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';
import {
  decodeBody,
  type FakeMessageProvider,
  type LocalSmtpServer,
  startMessageProvider,
  startSmtpServer,
  subjectOf,
} from '../helpers/transports.js';

const NOW = '2028-01-20T12:00:00.000Z';
const MAIL_FROM = 'paytrack <no-reply@paytrack.test>';
const API_KEY = 'mpk_live_secret';
const SMS_FROM = 'PAYTRACK';
const WHATSAPP_FROM = '+2348000000001';
const PLAN_TITLE = 'Fridge, hire purchase';
const AMOUNT = '₦1,500.00';

let smtp: LocalSmtpServer;
let provider: FakeMessageProvider;
let t: TestApp;

before(async () => {
  smtp = await startSmtpServer();
  provider = await startMessageProvider();
  t = await buildTestApp({
    clock: new ManualClock(new Date(NOW)),
    env: {
      SMTP_URL: smtp.url,
      MAIL_FROM,
      MESSAGE_PROVIDER_URL: provider.url,
      MESSAGE_PROVIDER_API_KEY: API_KEY,
      SMS_FROM,
      WHATSAPP_FROM,
    },
  });
});
after(async () => {
  await t?.close();
  await smtp?.close();
  await provider?.close();
});

const lagos = () => newWorkspace(t, { timezone: 'Africa/Lagos' });

async function reminderOf(client: Client, id: string) {
  const res = await client.get('/reminders?limit=100');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const found = (res.body.data.items as Record<string, unknown>[]).find((r) => r.id === id);
  assert.ok(found, `reminder ${id} listed`);
  return found;
}

/** The reminder's delivery tries, oldest first. */
async function logsOf(client: Client, reminderId: string) {
  const res = await client.get(`/reminders/logs?reminderId=${reminderId}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return [...res.body.data.items].reverse() as Record<string, unknown>[];
}

/** A customer (with `customer` fields) and a 150000 NGN plan of theirs titled "Fridge, hire purchase". */
async function customerWithPlan(client: Client, customer: Record<string, unknown> = {}) {
  const payer = await newCustomer(client, customer);
  const plan = await newTrack(client, { customerId: payer.id, amount: 150_000, title: PLAN_TITLE });
  return { payer, plan };
}

async function queue(client: Client, body: Record<string, unknown>) {
  const res = await client.post('/reminders', body);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.data as Record<string, unknown> & { id: string };
}

async function sendNow(client: Client, id: string) {
  const res = await client.post('/reminders/send', { reminderIds: [id] });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await t.worker.drain();
}

describe('live-mode reminders through the configured transports', () => {
  test('an e-mail reminder reaches the SMTP server with its subject and text, and is logged sent by smtp', async () => {
    const { live } = await lagos();
    const { payer, plan } = await customerWithPlan(live, {
      name: 'Adaeze Okafor',
      email: 'adaeze@example.com',
    });
    const reminder = await queue(live, { trackId: plan.id });
    assert.equal(reminder.channel, 'email');
    const before = smtp.received.length;
    await sendNow(live, reminder.id);

    const mails = smtp.received.slice(before);
    assert.equal(mails.length, 1, 'one message reached the SMTP server');
    assert.deepEqual(mails[0]?.recipients, ['adaeze@example.com']);
    const { headers, body } = decodeBody(mails[0]?.raw ?? '');
    const subject = subjectOf(headers);
    assert.match(subject, /Test workspace/);
    assert.ok(subject.includes(AMOUNT), subject);
    assert.match(headers, /^from: paytrack <no-reply@paytrack\.test>$/im);
    assert.ok(body.includes(AMOUNT), body);
    assert.ok(body.includes(PLAN_TITLE), body);
    assert.ok(body.includes(payer.name), body);

    const row = await reminderOf(live, reminder.id);
    assert.equal(row.status, 'sent', JSON.stringify(row));
    assert.equal(row.attempts, 1);
    const logs = await logsOf(live, reminder.id);
    assert.equal(logs.length, 1);
    assert.equal(logs[0]?.status, 'sent', JSON.stringify(logs[0]));
    assert.equal(logs[0]?.provider, 'smtp');
    assert.equal(logs[0]?.channel, 'email');
    assert.equal(logs[0]?.to, 'adaeze@example.com');
    assert.equal(logs[0]?.error, null);
    assert.match(String(logs[0]?.providerMessageId), /^<.+@.+>$/);
    assert.match(headers, new RegExp(`^message-id: ${logs[0]?.providerMessageId}$`, 'im'));
  });

  test('SMS and WhatsApp reminders reach the message provider with the bearer key, sender and text, and are logged sent with its id', async () => {
    const { live } = await lagos();
    const { payer, plan } = await customerWithPlan(live);
    const cases = [
      { channel: 'sms', from: SMS_FROM, id: 'msg_sms_1' },
      { channel: 'whatsapp', from: WHATSAPP_FROM, id: 'msg_wa_1' },
    ];
    for (const { channel, from, id } of cases) {
      const reminder = await queue(live, { trackId: plan.id, channel });
      const before = provider.requests.length;
      provider.answerOnce({ status: 200, body: JSON.stringify({ id, status: 'queued' }) });
      await sendNow(live, reminder.id);

      const requests = provider.requests.slice(before);
      assert.equal(requests.length, 1, `one ${channel} request reached the provider`);
      const [request] = requests;
      assert.equal(request?.method, 'POST');
      assert.equal(request?.path, '/messages');
      assert.equal(request?.headers.authorization, `Bearer ${API_KEY}`);
      assert.equal(request?.headers['content-type'], 'application/json');
      const sent = request?.body as Record<string, unknown>;
      assert.deepEqual(Object.keys(sent).sort(), ['channel', 'from', 'text', 'to']);
      assert.equal(sent.channel, channel);
      assert.equal(sent.from, from);
      assert.equal(sent.to, payer.phone);
      assert.ok(String(sent.text).includes(`${AMOUNT} for ${PLAN_TITLE}`), String(sent.text));

      const row = await reminderOf(live, reminder.id);
      assert.equal(row.status, 'sent', JSON.stringify(row));
      const logs = await logsOf(live, reminder.id);
      assert.equal(logs.length, 1);
      assert.equal(logs[0]?.status, 'sent', JSON.stringify(logs[0]));
      assert.equal(logs[0]?.channel, channel);
      assert.equal(logs[0]?.to, payer.phone);
      assert.equal(logs[0]?.provider, t.ctx.config.messageProviderName);
      assert.equal(logs[0]?.provider, 'messages', 'the default name without MESSAGE_PROVIDER_NAME');
      assert.equal(logs[0]?.providerMessageId, id);
      assert.equal(logs[0]?.error, null);
    }
  });

  test('a provider answering 503 once: that try is logged failed and retried a minute later, then sent', async () => {
    const { live, workspaceId } = await lagos();
    const { plan } = await customerWithPlan(live);
    const reminder = await queue(live, { trackId: plan.id, channel: 'sms' });
    const before = provider.requests.length;
    provider.answerOnce(
      { status: 503, body: '{"error":"try again later"}' },
      { status: 200, body: '{"id":"msg_retry_1"}' },
    );
    try {
      await sendNow(live, reminder.id);
      let row = await reminderOf(live, reminder.id);
      assert.equal(row.status, 'queued', JSON.stringify(row));
      assert.equal(row.attempts, 1);
      assert.match(String(row.lastError), /503/);
      let logs = await logsOf(live, reminder.id);
      assert.equal(logs.length, 1);
      assert.equal(logs[0]?.status, 'failed');
      assert.equal(logs[0]?.provider, 'messages');
      assert.equal(logs[0]?.providerMessageId, null);
      assert.match(String(logs[0]?.error), /answered 503/);
      assert.match(String(logs[0]?.error), /try again later/);

      t.clock.advance(60_000);
      await runSweepsNow(t.ctx, { mode: 'live', workspaceId, now: t.clock.now() });
      row = await reminderOf(live, reminder.id);
      assert.equal(row.status, 'sent', JSON.stringify(row));
      assert.equal(row.attempts, 2);
      assert.equal(row.lastError, null);
      logs = await logsOf(live, reminder.id);
      assert.deepEqual(
        logs.map((l) => [l.status, l.providerMessageId]),
        [
          ['failed', null],
          ['sent', 'msg_retry_1'],
        ],
      );
      assert.equal(provider.requests.length - before, 2, 'two tries reached the provider');
    } finally {
      t.clock.set(new Date(NOW));
    }
  });

  test('test mode on the same app never reaches the servers: each channel is sent simulated', async () => {
    const { api } = await lagos();
    const { plan } = await customerWithPlan(api, { email: 'ada@example.com' });
    const mails = smtp.received.length;
    const requests = provider.requests.length;
    for (const channel of ['email', 'sms', 'whatsapp']) {
      const reminder = await queue(api, { trackId: plan.id, channel });
      await sendNow(api, reminder.id);
      const row = await reminderOf(api, reminder.id);
      assert.equal(row.status, 'sent', JSON.stringify(row));
      const logs = await logsOf(api, reminder.id);
      assert.equal(logs.length, 1);
      assert.equal(logs[0]?.status, 'simulated', JSON.stringify(logs[0]));
      assert.equal(logs[0]?.provider, 'simulator');
    }
    assert.equal(smtp.received.length, mails, 'nothing new reached the SMTP server');
    assert.equal(provider.requests.length, requests, 'nothing new reached the message provider');
  });
});
