import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import {
  AFRICASTALKING_LIVE_URL,
  AFRICASTALKING_SANDBOX_URL,
  africastalkingApiUrl,
  createAfricastalkingAdapter,
} from '../../src/ports/africastalking/adapter.js';
import {
  CallbackSignatureError,
  type PhoneMessage,
  type RawCallback,
} from '../../src/ports/phone-messages.js';
import {
  type AfricastalkingFakeOptions,
  type FakeCallback,
  startAfricastalkingFake,
} from '../fakes/africastalking.js';

const TOKEN = 'cbt_7Qm2XkR9vLpA4sWz';
const CALLBACK_URL = `https://paytrack.example/callbacks/phone/set_01JDQ?token=${TOKEN}`;

async function setup(
  t: TestContext,
  options: { timeoutMs?: number; smsFrom?: string | null; fake?: AfricastalkingFakeOptions } = {},
) {
  const fake = await startAfricastalkingFake({ callbackUrl: undefined, ...options.fake });
  t.after(() => fake.close());
  const adapter = createAfricastalkingAdapter(
    {
      values: { username: fake.username, apiKey: fake.apiKey },
      apiUrl: fake.url,
      smsFrom: options.smsFrom === undefined ? 'PAYTRACK' : options.smsFrom,
      whatsappFrom: null,
      callbackUrl: CALLBACK_URL,
    },
    { timeoutMs: options.timeoutMs ?? 5_000 },
  );
  return { fake, adapter };
}

const reminder = (overrides: Partial<PhoneMessage> = {}): PhoneMessage => ({
  channel: 'sms',
  to: '+254711082300',
  text: 'Ada, 1,500.00 KES is due on 1 December. Reply STOP to opt out.',
  reference: 'rml_01JDQ5',
  ...overrides,
});

/** The callback as our HTTP route would hand it over, at the URL our dashboard setting carries. */
const raw = (callback: FakeCallback, url = CALLBACK_URL): RawCallback => ({
  url,
  body: callback.body,
  contentType: callback.contentType,
  headers: callback.headers,
});

test('SMS: sent with the username, number, text and sender, form-encoded with the apiKey header', async (t) => {
  const { fake, adapter } = await setup(t);
  assert.equal(adapter.name, 'africastalking');
  assert.deepEqual([...adapter.channels], ['sms']);

  const result = await adapter.send(reminder());
  assert.equal(result.status, 'sent');
  assert.ok(result.status === 'sent');
  assert.equal(fake.sent.length, 1);
  assert.equal(result.providerMessageId, fake.sent[0]!.messageId);
  assert.match(result.providerMessageId, /^ATXid_/);

  const [call] = fake.requests;
  assert.equal(call!.method, 'POST');
  assert.equal(call!.path, '/version1/messaging');
  assert.equal(call!.headers.apikey, fake.apiKey);
  assert.equal(call!.headers.accept, 'application/json');
  assert.equal(call!.headers['content-type'], 'application/x-www-form-urlencoded');
  // Nothing but the documented fields: our reference has no place there, and callbacks are set in the dashboard.
  assert.deepEqual(call!.body, {
    username: fake.username,
    to: '+254711082300',
    message: reminder().text,
    from: 'PAYTRACK',
  });
});

test('SMS without a sender: `from` is left out and the account default applies', async (t) => {
  const { fake, adapter } = await setup(t, { smsFrom: null });
  assert.equal((await adapter.send(reminder())).status, 'sent');
  assert.equal(fake.sent[0]!.from, null);
  assert.equal('from' in fake.requests[0]!.body, false);
});

test('WhatsApp: not offered through this API, refused without a request', async (t) => {
  const { fake, adapter } = await setup(t);
  const result = await adapter.send(reminder({ channel: 'whatsapp' }));
  assert.deepEqual(
    { status: result.status, code: result.status === 'failed' ? result.providerCode : null },
    { status: 'failed', code: 'channel_unsupported' },
  );
  assert.equal(fake.requests.length, 0);
});

test('refusals: a recipient status is the provider code, final unless Africa says later may work', async (t) => {
  const { fake, adapter } = await setup(t);
  const cases: [number | string, string, boolean][] = [
    [403, 'InvalidPhoneNumber', false],
    ['InsufficientBalance', 'InsufficientBalance', false],
    [406, 'UserInBlacklist', false],
    [502, 'RejectedByGateway', false],
    [501, 'GatewayError', true],
    // Documented with HTTP 409: a promotional sender outside Nigeria's allowed hours.
    [409, 'DoNotDisturbRejection', true],
  ];
  for (const [reject, code, retryable] of cases) {
    fake.nextSend({ reject });
    const result = await adapter.send(reminder());
    assert.equal(result.status, 'failed', code);
    assert.ok(result.status === 'failed');
    assert.equal(result.providerCode, code);
    assert.equal(result.retryable, retryable, code);
  }
  assert.equal(fake.sent.length, 0);
});

test('refusals: a bad number at the fake, a sender ID the account lacks, and a wrong key', async (t) => {
  const { fake, adapter } = await setup(t, { fake: { senderIds: ['AFRICASTKNG'] } });
  const sender = await adapter.send(reminder());
  assert.deepEqual(sender.status === 'failed' && [sender.providerCode, sender.retryable], [
    'InvalidSenderId',
    false,
  ]);

  const other = await setup(t, { smsFrom: null });
  const number = await other.adapter.send(reminder({ to: '+25471' }));
  assert.deepEqual(number.status === 'failed' && [number.providerCode, number.retryable], [
    'InvalidPhoneNumber',
    false,
  ]);

  const wrongKey = createAfricastalkingAdapter({
    values: { username: fake.username, apiKey: 'atsk_not_the_key' },
    apiUrl: fake.url,
    smsFrom: null,
    whatsappFrom: null,
    callbackUrl: CALLBACK_URL,
  });
  const refused = await wrongKey.send(reminder());
  assert.ok(refused.status === 'failed');
  assert.equal(refused.providerCode, 'http_401');
  assert.equal(refused.retryable, false);
  assert.match(refused.message, /The supplied authentication is invalid/);
  assert.doesNotMatch(refused.message, /atsk_/);
});

test('429, 500 and a timeout are failures to try again', async (t) => {
  const { fake, adapter } = await setup(t, { timeoutMs: 300 });
  fake.nextSend({ status: 429 });
  fake.nextSend({ status: 500 });
  fake.nextSend('timeout');
  const limited = await adapter.send(reminder());
  const broken = await adapter.send(reminder());
  const late = await adapter.send(reminder());
  assert.deepEqual(
    [limited, broken, late].map((r) => (r.status === 'failed' ? [r.providerCode, r.retryable] : r.status)),
    [
      ['rate_limited', true],
      ['http_500', true],
      ['timeout', true],
    ],
  );
  // The late one reached Africa's Talking: the retry is why `reference` is ours to keep.
  assert.equal(fake.sent.length, 1);
});

test('a closed port is a network failure to try again', async (t) => {
  const { fake } = await setup(t);
  const { url } = fake;
  await fake.close();
  const adapter = createAfricastalkingAdapter({
    values: { username: 'paytrack-test', apiKey: 'atsk_x' },
    apiUrl: url,
    smsFrom: null,
    whatsappFrom: null,
    callbackUrl: CALLBACK_URL,
  });
  const result = await adapter.send(reminder());
  assert.deepEqual(result.status === 'failed' && [result.providerCode, result.retryable], ['network', true]);
});

test('delivery reports: delivered, undelivered with its reason, and failed', async (t) => {
  const { fake, adapter } = await setup(t);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const sent = await adapter.send(reminder());
    assert.ok(sent.status === 'sent');
    ids.push(sent.providerMessageId);
  }
  const delivered = adapter.parseCallback(raw(await fake.deliver(ids[0]!, 'delivered')), TOKEN);
  assert.deepEqual(delivered, [
    {
      kind: 'status',
      eventId: `dlr:${ids[0]}:Success`,
      providerMessageId: ids[0],
      status: 'delivered',
      errorCode: null,
    },
  ]);
  const undelivered = adapter.parseCallback(
    raw(await fake.deliver(ids[1]!, 'undelivered', 'UserIsInactive')),
    TOKEN,
  );
  assert.deepEqual(undelivered, [
    {
      kind: 'status',
      eventId: `dlr:${ids[1]}:Failed`,
      providerMessageId: ids[1],
      status: 'undelivered',
      errorCode: 'UserIsInactive',
    },
  ]);
  const failed = adapter.parseCallback(raw(await fake.deliver(ids[2]!, 'failed', 'UserInBlackList')), TOKEN);
  assert.equal(failed[0]!.kind === 'status' && failed[0]!.status, 'failed');
  assert.equal(failed[0]!.kind === 'status' && failed[0]!.errorCode, 'UserInBlackList');
});

test('delivery reports: on-the-way states are `sent`, AbsentSubscriber is undelivered, unknown words ignored', async (t) => {
  const { fake, adapter } = await setup(t);
  const sent = await adapter.send(reminder());
  assert.ok(sent.status === 'sent');
  const id = sent.providerMessageId;
  for (const word of ['Sent', 'Submitted', 'Buffered']) {
    const [event] = adapter.parseCallback(raw(await fake.report(id, word)), TOKEN);
    assert.deepEqual(event, {
      kind: 'status',
      eventId: `dlr:${id}:${word}`,
      providerMessageId: id,
      status: 'sent',
      errorCode: null,
    });
  }
  const [absent] = adapter.parseCallback(raw(await fake.report(id, 'AbsentSubscriber')), TOKEN);
  assert.deepEqual(absent!.kind === 'status' && [absent!.status, absent!.errorCode], [
    'undelivered',
    'AbsentSubscriber',
  ]);
  const [odd] = adapter.parseCallback(raw(await fake.report(id, 'Teleported')), TOKEN);
  assert.equal(odd!.kind, 'ignored');
});

test('inbound: an incoming SMS in our words', async (t) => {
  const { fake, adapter } = await setup(t);
  const callback = await fake.inbound('+254711082300', 'STOP');
  const [event] = adapter.parseCallback(raw(callback), TOKEN);
  const id = new URLSearchParams(callback.body).get('id')!;
  assert.deepEqual(event, {
    kind: 'inbound',
    eventId: `inbound:${id}`,
    channel: 'sms',
    from: '+254711082300',
    to: '20880',
    text: 'STOP',
    providerMessageId: id,
  });
  // An opt-out notice is nothing for us to act on.
  const optOut = adapter.parseCallback(
    {
      url: CALLBACK_URL,
      body: 'senderId=PAYTRACK&phoneNumber=%2B254711082300',
      contentType: 'application/x-www-form-urlencoded',
      headers: {},
    },
    TOKEN,
  );
  assert.equal(optOut[0]!.kind, 'ignored');
});

test('forged callbacks: a missing, wrong or edited token is refused', async (t) => {
  const { fake, adapter } = await setup(t);
  const sent = await adapter.send(reminder());
  assert.ok(sent.status === 'sent');
  const callback = await fake.deliver(sent.providerMessageId, 'delivered');
  const refused = (url: string, token = TOKEN) =>
    assert.throws(() => adapter.parseCallback(raw(callback, url), token), CallbackSignatureError);
  refused(fake.sign(CALLBACK_URL, null));
  refused(fake.sign(CALLBACK_URL, 'cbt_guess'));
  refused(fake.sign(CALLBACK_URL, `${TOKEN}x`));
  refused(fake.sign(CALLBACK_URL, TOKEN.slice(0, -1)));
  // An empty setting token matches nothing, not even an empty parameter.
  refused(fake.sign(CALLBACK_URL, ''), '');
  assert.equal(adapter.parseCallback(raw(callback, fake.sign(CALLBACK_URL, TOKEN)), TOKEN).length, 1);
});

test('a redelivered callback gives the same event id; the fake POSTs it to the callback URL', async (t) => {
  const received: { url: string; body: string; type: string | undefined }[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        url: req.url ?? '',
        body: Buffer.concat(chunks).toString(),
        type: req.headers['content-type'],
      });
      res.end('OK');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const port = (receiver.address() as AddressInfo).port;
  const callbackUrl = `http://127.0.0.1:${port}/callbacks/phone/set_01JDQ?token=${TOKEN}`;
  const { fake, adapter } = await setup(t, { fake: { callbackUrl } });

  const sent = await adapter.send(reminder());
  assert.ok(sent.status === 'sent');
  const first = await fake.deliver(sent.providerMessageId, 'delivered');
  const again = await fake.deliver(sent.providerMessageId, 'delivered');
  assert.equal(received.length, 2);
  assert.equal(received[0]!.url, `/callbacks/phone/set_01JDQ?token=${TOKEN}`);
  assert.equal(received[0]!.type, 'application/x-www-form-urlencoded');
  const [a] = adapter.parseCallback(raw(first, first.url), TOKEN);
  const [b] = adapter.parseCallback(raw(again, again.url), TOKEN);
  assert.equal(a!.eventId, b!.eventId);

  const inbound = await fake.inbound('+254711082300', 'PAID');
  const [c] = adapter.parseCallback(raw(inbound, inbound.url), TOKEN);
  const [d] = adapter.parseCallback(raw(inbound, inbound.url), TOKEN);
  assert.equal(c!.eventId, d!.eventId);
});

test('sandbox: the sandbox username on the live default goes to the sandbox host', () => {
  assert.equal(africastalkingApiUrl('sandbox', AFRICASTALKING_LIVE_URL), AFRICASTALKING_SANDBOX_URL);
  assert.equal(africastalkingApiUrl('sandbox', `${AFRICASTALKING_LIVE_URL}/`), AFRICASTALKING_SANDBOX_URL);
  assert.equal(africastalkingApiUrl('paytrack', AFRICASTALKING_LIVE_URL), AFRICASTALKING_LIVE_URL);
  assert.equal(africastalkingApiUrl('sandbox', 'http://127.0.0.1:4010'), 'http://127.0.0.1:4010');
});
