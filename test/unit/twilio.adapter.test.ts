import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import {
  CallbackSignatureError,
  type PhoneMessage,
  type PhoneMessageAdapter,
  type PhoneProviderCredentials,
  type RawCallback,
} from '../../src/ports/phone-messages.js';
import { createTwilioAdapter } from '../../src/ports/twilio/adapter.js';
import {
  startTwilioFake,
  type TwilioCallback,
  type TwilioFake,
  type TwilioFakeOptions,
} from '../fakes/twilio.js';

const CALLBACK_URL = 'https://paytrack.example/callbacks/phone/twilio?setting=mps_01JDQ5';

function credentialsFor(fake: TwilioFake, overrides: Partial<PhoneProviderCredentials> = {}) {
  return {
    values: { accountSid: fake.accountSid, authToken: fake.authToken },
    apiUrl: fake.url,
    smsFrom: fake.smsFrom,
    whatsappFrom: fake.whatsappFrom,
    callbackUrl: CALLBACK_URL,
    ...overrides,
  } satisfies PhoneProviderCredentials;
}

async function setup(
  t: TestContext,
  overrides: Partial<PhoneProviderCredentials> = {},
  fakeOptions: TwilioFakeOptions = {},
  timeoutMs = 5_000,
) {
  const fake = await startTwilioFake(fakeOptions);
  t.after(() => fake.close());
  const adapter = createTwilioAdapter(credentialsFor(fake, overrides), { timeoutMs });
  return { fake, adapter };
}

const sms = {
  channel: 'sms' as const,
  to: '+2348031234567',
  text: 'Ada, ₦1,500.00 is due on 1 Dec.',
  reference: 'rem_01',
};
const whatsapp = { ...sms, channel: 'whatsapp' as const, reference: 'rem_02' };

const raw = (callback: TwilioCallback): RawCallback => ({
  url: callback.url,
  body: callback.body,
  contentType: callback.contentType,
  headers: callback.headers,
});

async function sentId(adapter: PhoneMessageAdapter, message: PhoneMessage = sms): Promise<string> {
  const result = await adapter.send(message);
  assert.equal(result.status, 'sent');
  return result.status === 'sent' ? result.providerMessageId : '';
}

test('SMS: Create a Message gets To, From, Body and StatusCallback, form-encoded with basic auth', async (t) => {
  const { fake, adapter } = await setup(t);
  assert.deepEqual([...adapter.channels].sort(), ['sms', 'whatsapp']);
  const id = await sentId(adapter);

  assert.equal(fake.sent.length, 1);
  assert.equal(fake.sent[0]!.sid, id);
  assert.match(id, /^SM[0-9a-f]{32}$/);
  const request = fake.requests[0]!;
  assert.equal(request.method, 'POST');
  assert.equal(request.path, `/2010-04-01/Accounts/${fake.accountSid}/Messages.json`);
  assert.deepEqual(request.body, {
    To: sms.to,
    From: fake.smsFrom,
    Body: sms.text,
    StatusCallback: CALLBACK_URL,
  });
});

test('WhatsApp: To and From carry the whatsapp: prefix', async (t) => {
  const { fake, adapter } = await setup(t);
  const id = await sentId(adapter, whatsapp);
  assert.equal(fake.sent[0]!.sid, id);
  assert.equal(fake.sent[0]!.params.To, `whatsapp:${whatsapp.to}`);
  assert.equal(fake.sent[0]!.params.From, `whatsapp:${fake.whatsappFrom}`);
  assert.equal(fake.sent[0]!.params.StatusCallback, CALLBACK_URL);
});

test('a Messaging Service SID as the SMS sender goes as MessagingServiceSid', async (t) => {
  const service = 'MG9752274e9e519418a7406176694466fa';
  const { fake, adapter } = await setup(t, { smsFrom: service }, { smsSenders: [service] });
  await sentId(adapter);
  assert.equal(fake.sent[0]!.params.MessagingServiceSid, service);
  assert.equal(fake.sent[0]!.params.From, undefined);
  assert.equal(fake.sent[0]!.status, 'accepted');
});

test('a channel without a sender is not offered and is not sent', async (t) => {
  const { fake, adapter } = await setup(t, { whatsappFrom: null });
  assert.deepEqual([...adapter.channels], ['sms']);
  const result = await adapter.send(whatsapp);
  assert.deepEqual(result, {
    status: 'failed',
    providerCode: 'no_sender',
    message: 'No whatsapp sender is set up for Twilio.',
    retryable: false,
  });
  assert.equal(fake.requests.length, 0);
});

test("Twilio's refusals keep its code and are final", async (t) => {
  const { fake, adapter } = await setup(t);
  fake.nextSend({ reject: 21610, message: 'Attempt to send to unsubscribed recipient' });
  const unsubscribed = await adapter.send(sms);
  assert.deepEqual(unsubscribed, {
    status: 'failed',
    providerCode: '21610',
    message: 'Twilio error 21610: Attempt to send to unsubscribed recipient',
    retryable: false,
  });

  // The fake's own check, as Twilio answers a number that is not E.164.
  const invalid = await adapter.send({ ...sms, to: '08031234567' });
  assert.equal(invalid.status, 'failed');
  assert.ok(invalid.status === 'failed');
  assert.equal(invalid.providerCode, '21211');
  assert.equal(invalid.retryable, false);
  assert.equal(fake.sent.length, 0);
});

test("Twilio's full sender queue (21611) is worth trying later", async (t) => {
  const { fake, adapter } = await setup(t);
  fake.nextSend({
    reject: 21611,
    message: "This 'From' number has exceeded the maximum number of queued messages",
  });
  const result = await adapter.send(sms);
  assert.ok(result.status === 'failed');
  assert.equal(result.providerCode, '21611');
  assert.equal(result.retryable, true);
});

test('a wrong Auth Token is refused with 20003 and not retried; the token is not in the message', async (t) => {
  const fake = await startTwilioFake();
  t.after(() => fake.close());
  const adapter = createTwilioAdapter({
    ...credentialsFor(fake),
    values: { accountSid: fake.accountSid, authToken: 'not-the-token-0000000000000000000' },
  });
  const result = await adapter.send(sms);
  assert.ok(result.status === 'failed');
  assert.equal(result.providerCode, '20003');
  assert.equal(result.retryable, false);
  assert.doesNotMatch(result.message, /not-the-token/);
});

test('429, 500 and 503 are retryable and create nothing', async (t) => {
  const { fake, adapter } = await setup(t);
  fake.nextSend({ status: 429 });
  fake.nextSend({ status: 500 });
  fake.nextSend({ status: 503 });
  const limited = await adapter.send(sms);
  const broken = await adapter.send(sms);
  const unavailable = await adapter.send(sms);
  assert.ok(limited.status === 'failed' && broken.status === 'failed' && unavailable.status === 'failed');
  assert.deepEqual(
    [limited, broken, unavailable].map((r) => [r.providerCode, r.retryable]),
    [
      ['rate_limited', true],
      ['http_5xx', true],
      ['http_5xx', true],
    ],
  );
  assert.equal(fake.sent.length, 0);
});

test('a timeout is retryable, though Twilio may have created the message', async (t) => {
  const { fake, adapter } = await setup(t, {}, {}, 150);
  fake.nextSend('timeout');
  const result = await adapter.send(sms);
  assert.deepEqual(result.status === 'failed' ? [result.providerCode, result.retryable] : result, [
    'timeout',
    true,
  ]);
  assert.equal(fake.sent.length, 1);
});

test('no connection is a retryable network failure', async (t) => {
  const fake = await startTwilioFake();
  const apiUrl = fake.url;
  await fake.close();
  const adapter = createTwilioAdapter({ ...credentialsFor(fake), apiUrl }, { timeoutMs: 2_000 });
  const result = await adapter.send(sms);
  assert.ok(result.status === 'failed');
  assert.deepEqual([result.providerCode, result.retryable], ['network', true]);
  t.diagnostic(result.message);
});

test('delivered and undelivered status callbacks are read, with the error code', async (t) => {
  const { fake, adapter } = await setup(t);
  const first = await sentId(adapter);
  const second = await sentId(adapter, whatsapp);

  const delivered = adapter.parseCallback(raw(await fake.deliver(first, 'delivered')), 'unused');
  assert.deepEqual(delivered, [
    {
      kind: 'status',
      eventId: `${first}:delivered`,
      providerMessageId: first,
      status: 'delivered',
      errorCode: null,
    },
  ]);
  const undelivered = adapter.parseCallback(
    raw(await fake.deliver(second, 'undelivered', '63016')),
    'unused',
  );
  assert.deepEqual(undelivered, [
    {
      kind: 'status',
      eventId: `${second}:undelivered`,
      providerMessageId: second,
      status: 'undelivered',
      errorCode: '63016',
    },
  ]);
  const failed = adapter.parseCallback(raw(await fake.deliver(first, 'failed', '30008')), 'unused');
  assert.equal(failed[0]?.kind === 'status' ? failed[0].status : null, 'failed');
});

test('intermediate statuses: sent is sent, queued and sending are ignored, read is delivered', async (t) => {
  const { fake, adapter } = await setup(t);
  const id = await sentId(adapter, whatsapp);
  const callback = (status: string): RawCallback => {
    const body = new URLSearchParams({
      SmsSid: id,
      SmsStatus: status,
      MessageStatus: status,
      To: `whatsapp:${whatsapp.to}`,
      MessageSid: id,
      AccountSid: fake.accountSid,
      From: `whatsapp:${fake.whatsappFrom}`,
      ApiVersion: '2010-04-01',
    }).toString();
    return { url: CALLBACK_URL, body, contentType: null, headers: fake.sign(CALLBACK_URL, body) };
  };
  const read = (status: string) => adapter.parseCallback(callback(status), 'unused')[0]!;
  assert.deepEqual(read('sending'), { kind: 'ignored', eventId: `${id}:sending` });
  assert.deepEqual(read('queued'), { kind: 'ignored', eventId: `${id}:queued` });
  assert.equal(read('sent').kind === 'status' ? 'sent' : null, 'sent');
  const seen = read('read');
  assert.equal(seen.kind === 'status' ? seen.status : null, 'delivered');
});

test('incoming SMS and WhatsApp messages are read, the whatsapp: prefix removed', async (t) => {
  // Signed for our URL, returned, not posted (no callbackUrl).
  const { fake, adapter } = await setup(t, {}, { incomingUrl: CALLBACK_URL });
  const smsIn = await fake.inbound('+2348031234567', 'STOP', 'sms');
  const [event] = adapter.parseCallback(raw(smsIn), 'unused');
  assert.ok(event?.kind === 'inbound');
  assert.deepEqual(
    { ...event, eventId: undefined, providerMessageId: undefined },
    {
      kind: 'inbound',
      eventId: undefined,
      providerMessageId: undefined,
      channel: 'sms',
      from: '+2348031234567',
      to: fake.smsFrom,
      text: 'STOP',
    },
  );
  assert.match(event.providerMessageId, /^SM[0-9a-f]{32}$/);
  assert.equal(event.eventId, `${event.providerMessageId}:received`);

  const [chat] = adapter.parseCallback(
    raw(await fake.inbound('+2348031234567', 'Paid, thanks', 'whatsapp')),
    '',
  );
  assert.ok(chat?.kind === 'inbound');
  assert.equal(chat.channel, 'whatsapp');
  assert.equal(chat.from, '+2348031234567');
  assert.equal(chat.to, fake.whatsappFrom);
  assert.equal(chat.text, 'Paid, thanks');
});

test('forged, edited, re-addressed and unsigned callbacks are refused', async (t) => {
  const { fake, adapter } = await setup(t);
  const id = await sentId(adapter);
  const genuine = await fake.deliver(id, 'delivered');

  const forger = await startTwilioFake({ authToken: '00000000000000000000000000000000' });
  t.after(() => forger.close());
  const forged = { ...raw(genuine), headers: forger.sign(genuine.url, genuine.body) };
  assert.throws(() => adapter.parseCallback(forged, 'unused'), CallbackSignatureError);

  const edited = {
    ...raw(genuine),
    body: genuine.body.replace('MessageStatus=delivered', 'MessageStatus=failed'),
  };
  assert.notEqual(edited.body, genuine.body);
  assert.throws(() => adapter.parseCallback(edited, 'unused'), CallbackSignatureError);

  const added = { ...raw(genuine), body: `${genuine.body}&ErrorCode=30003` };
  assert.throws(() => adapter.parseCallback(added, 'unused'), CallbackSignatureError);

  const readdressed = { ...raw(genuine), url: `${CALLBACK_URL}x` };
  assert.throws(() => adapter.parseCallback(readdressed, 'unused'), CallbackSignatureError);

  const { 'x-twilio-signature': _dropped, ...unsigned } = genuine.headers;
  assert.throws(
    () => adapter.parseCallback({ ...raw(genuine), headers: unsigned }, 'unused'),
    CallbackSignatureError,
  );

  // Parameter order does not matter to Twilio's signature: a reordered body is the same callback.
  const reordered = new URLSearchParams([...new URLSearchParams(genuine.body)].reverse()).toString();
  assert.equal(adapter.parseCallback({ ...raw(genuine), body: reordered }, 'unused')[0]?.kind, 'status');
});

test('a signature over the URL with its standard port is accepted, as Twilio SDKs accept it', async (t) => {
  const { fake, adapter } = await setup(t);
  const id = await sentId(adapter);
  const genuine = await fake.deliver(id, 'delivered');
  const withPort = CALLBACK_URL.replace('paytrack.example', 'paytrack.example:443');
  const headers = fake.sign(withPort, genuine.body);
  assert.equal(adapter.parseCallback({ ...raw(genuine), headers }, 'unused')[0]?.kind, 'status');
});

test('a redelivered callback has the same event id', async (t) => {
  const { fake, adapter } = await setup(t);
  const id = await sentId(adapter);
  const once = await fake.deliver(id, 'undelivered', '30003');
  const again = await fake.deliver(id, 'undelivered', '30003');
  const first = adapter.parseCallback(raw(once), 'unused');
  const second = adapter.parseCallback(raw(again), 'unused');
  assert.equal(first[0]?.eventId, second[0]?.eventId);
  assert.equal(first[0]?.eventId, `${id}:undelivered`);
});

test('with callbackUrl set, the fake POSTs the signed callback there, and it reads as received', async (t) => {
  const received: RawCallback[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const address = receiver.address() as AddressInfo;
      received.push({
        url: `http://127.0.0.1:${address.port}${req.url}`,
        body: Buffer.concat(chunks).toString('utf8'),
        contentType: req.headers['content-type'] ?? null,
        headers: req.headers,
      });
      res.writeHead(200, { 'content-type': 'text/xml' }).end('<Response/>');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callbacks/twilio?setting=mps_1`;

  const { fake, adapter } = await setup(t, { callbackUrl }, { callbackUrl });
  const id = await sentId(adapter);
  await fake.deliver(id, 'delivered');
  await fake.inbound('+2348031234567', 'Hello', 'sms');

  assert.equal(received.length, 2);
  assert.equal(received[0]!.contentType, 'application/x-www-form-urlencoded');
  const events = received.flatMap((callback) => adapter.parseCallback(callback, 'unused'));
  assert.deepEqual(
    events.map((e) => e.kind),
    ['status', 'inbound'],
  );
});
