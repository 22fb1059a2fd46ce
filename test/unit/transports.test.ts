import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { liveSender } from '../../src/ports/live-messages.js';
import { smtpSender } from '../../src/ports/mail.js';
import { httpMessageSender } from '../../src/ports/message-provider.js';
import { createPorts } from '../../src/ports/ports.js';
import {
  closedPort,
  closeSmtp,
  decodeBody,
  type FakeMessageProvider,
  startMessageProvider,
  startSmtpServer,
  subjectOf,
} from '../helpers/transports.js';

const FROM = 'paytrack <no-reply@paytrack.test>';
const TEXT = 'Your next payment of ₦1,500.00 for "Term fees – Ọ̀ṣun class" is due on 2028-02-01.';
const SUBJECT = 'Payment of ₦1,500.00 due soon';

describe('e-mail over SMTP', () => {
  let accepting: Awaited<ReturnType<typeof startSmtpServer>>;
  let refusing: Awaited<ReturnType<typeof startSmtpServer>>;
  before(async () => {
    accepting = await startSmtpServer();
    refusing = await startSmtpServer({
      onRcptTo(address, _session, callback) {
        const refusal = Object.assign(new Error(`No mailbox here by the name ${address.address}`), {
          responseCode: 550,
        });
        callback(refusal);
      },
    });
  });
  after(async () => {
    await closeSmtp(accepting.server);
    await closeSmtp(refusing.server);
  });

  test('a message reaches the server with its recipient, subject and UTF-8 text, and comes back sent', async () => {
    const receipt = await smtpSender({ smtpUrl: accepting.url, from: FROM }).send({
      channel: 'email',
      to: 'ada@example.com',
      subject: SUBJECT,
      text: TEXT,
    });
    assert.equal(receipt.status, 'sent', receipt.error ?? '');
    assert.equal(receipt.provider, 'smtp');
    assert.equal(receipt.error, null);
    assert.match(receipt.providerMessageId ?? '', /^<.+@.+>$/);

    assert.equal(accepting.received.length, 1);
    const [mail] = accepting.received;
    assert.deepEqual(mail?.recipients, ['ada@example.com']);
    const { headers, body } = decodeBody(mail?.raw ?? '');
    assert.equal(subjectOf(headers), SUBJECT);
    assert.match(headers, /^from: paytrack <no-reply@paytrack\.test>$/im);
    assert.match(headers, new RegExp(`^message-id: ${receipt.providerMessageId}$`, 'im'));
    assert.equal(body.replace(/\r?\n$/, ''), TEXT);
  });

  test('a recipient the server refuses gives a failed receipt carrying its answer', async () => {
    const receipt = await smtpSender({ smtpUrl: refusing.url, from: FROM }).send({
      channel: 'email',
      to: 'nobody@example.com',
      subject: 'Hello',
      text: 'Hi',
    });
    assert.equal(receipt.status, 'failed');
    assert.equal(receipt.provider, 'smtp');
    assert.equal(receipt.providerMessageId, null);
    assert.match(receipt.error ?? '', /recipients were rejected/);
    assert.match(receipt.error ?? '', /550 No mailbox here by the name nobody@example\.com/);
    assert.equal(refusing.received.length, 0);
  });

  test('a server that is not there gives a failed receipt, not a throw', async () => {
    const receipt = await smtpSender({ smtpUrl: `smtp://127.0.0.1:${await closedPort()}`, from: FROM }).send({
      channel: 'email',
      to: 'ada@example.com',
      subject: 'Hello',
      text: 'Hi',
    });
    assert.equal(receipt.status, 'failed');
    assert.match(receipt.error ?? '', /^SMTP delivery failed \(ESOCKET\): .*ECONNREFUSED/);
  });

  test('a server that never greets gives a failed receipt once the timeout passes', async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as net.AddressInfo;
      const receipt = await smtpSender({
        smtpUrl: `smtp://127.0.0.1:${port}`,
        from: FROM,
        timeoutMs: 200,
      }).send({
        channel: 'email',
        to: 'ada@example.com',
        subject: 'Hello',
        text: 'Hi',
      });
      assert.equal(receipt.status, 'failed');
      // Which of nodemailer's timers fires first (connection or greeting) depends on the machine's load.
      assert.match(receipt.error ?? '', /Greeting never received|ETIMEDOUT/);
    } finally {
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

interface ProviderCall {
  method: string | undefined;
  url: string | undefined;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
}

describe('SMS and WhatsApp over the HTTP message provider', () => {
  let provider: FakeMessageProvider;
  let baseUrl: string;
  const calls = (): ProviderCall[] =>
    provider.requests.map((r) => ({
      method: r.method,
      url: r.path,
      authorization: r.headers.authorization,
      contentType: r.headers['content-type'],
      body: r.body,
    }));
  const sender = (overrides: Partial<Parameters<typeof httpMessageSender>[0]> = {}) =>
    httpMessageSender({
      baseUrl,
      apiKey: 'mpk_secret',
      smsFrom: 'PAYTRACK',
      whatsappFrom: '+2348000000001',
      name: 'acme-messages',
      ...overrides,
    });

  before(async () => {
    provider = await startMessageProvider({ silentPaths: ['/slow/messages'] });
    baseUrl = provider.url;
  });
  after(() => provider.close());

  test('SMS and WhatsApp are POSTed to /messages with the bearer key and come back sent with the id', async () => {
    provider.requests.length = 0;
    provider.answer = { status: 200, body: '{"id":"msg_1","status":"queued"}' };
    const sms = await sender().send({ channel: 'sms', to: '+2348031234567', text: TEXT });
    assert.deepEqual(sms, {
      status: 'sent',
      provider: 'acme-messages',
      providerMessageId: 'msg_1',
      error: null,
    });
    const whatsapp = await sender().send({ channel: 'whatsapp', to: '+2348031234568', text: 'Hi' });
    assert.equal(whatsapp.status, 'sent');
    assert.equal(whatsapp.providerMessageId, 'msg_1');

    assert.deepEqual(calls(), [
      {
        method: 'POST',
        url: '/messages',
        authorization: 'Bearer mpk_secret',
        contentType: 'application/json',
        body: { channel: 'sms', from: 'PAYTRACK', to: '+2348031234567', text: TEXT },
      },
      {
        method: 'POST',
        url: '/messages',
        authorization: 'Bearer mpk_secret',
        contentType: 'application/json',
        body: { channel: 'whatsapp', from: '+2348000000001', to: '+2348031234568', text: 'Hi' },
      },
    ]);
  });

  test('a 500 answer gives a failed receipt naming the status and a shortened body', async () => {
    provider.answer = { status: 500, body: `{"error":"${'x'.repeat(1000)}"}` };
    const receipt = await sender().send({ channel: 'sms', to: '+2348031234567', text: 'Hi' });
    assert.equal(receipt.status, 'failed');
    assert.equal(receipt.provider, 'acme-messages');
    assert.equal(receipt.providerMessageId, null);
    assert.match(receipt.error ?? '', /^acme-messages answered 500: \{"error":"x+…$/);
    assert.ok((receipt.error ?? '').length < 400, 'the body in the error is cut short');
  });

  test('a 2xx answer without an id gives a failed receipt', async () => {
    provider.answer = { status: 202, body: '{"queued":true}' };
    const receipt = await sender().send({ channel: 'whatsapp', to: '+2348031234567', text: 'Hi' });
    assert.equal(receipt.status, 'failed');
    assert.match(receipt.error ?? '', /answered 202 without a message id/);
  });

  test('a provider that is not there gives a failed receipt, not a throw', async () => {
    const receipt = await sender({ baseUrl: `http://127.0.0.1:${await closedPort()}` }).send({
      channel: 'sms',
      to: '+2348031234567',
      text: 'Hi',
    });
    assert.equal(receipt.status, 'failed');
    assert.equal(receipt.error, 'acme-messages could not be reached: ECONNREFUSED');
  });

  test('a provider that does not answer in time gives a failed receipt', async () => {
    const receipt = await sender({ baseUrl: `${baseUrl}/slow`, timeoutMs: 200 }).send({
      channel: 'sms',
      to: '+2348031234567',
      text: 'Hi',
    });
    assert.equal(receipt.status, 'failed');
    assert.equal(receipt.error, 'acme-messages did not answer within 0.2 s');
  });
});

describe('live-mode routing', () => {
  const nothingSet = loadConfig({});

  test('with nothing configured every channel fails, naming the variables to set', async () => {
    const sender = liveSender(nothingSet);
    const email = await sender.send({ channel: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Hi' });
    const sms = await sender.send({ channel: 'sms', to: '+2348031234567', text: 'Hi' });
    const whatsapp = await sender.send({ channel: 'whatsapp', to: '+2348031234567', text: 'Hi' });
    for (const receipt of [email, sms, whatsapp]) {
      assert.equal(receipt.status, 'failed');
      assert.equal(receipt.provider, 'none');
    }
    assert.equal(email.error, 'e-mail is not configured: set SMTP_URL');
    assert.equal(
      sms.error,
      'SMS is not configured: set MESSAGE_PROVIDER_URL, MESSAGE_PROVIDER_API_KEY and SMS_FROM',
    );
    assert.equal(
      whatsapp.error,
      'WhatsApp is not configured: set MESSAGE_PROVIDER_URL, MESSAGE_PROVIDER_API_KEY and WHATSAPP_FROM',
    );
  });

  test('a channel missing only its sender names just that variable', async () => {
    const sender = liveSender(
      loadConfig({
        MESSAGE_PROVIDER_URL: 'https://messages.example.com',
        MESSAGE_PROVIDER_API_KEY: 'k',
        SMS_FROM: 'X',
      }),
    );
    const whatsapp = await sender.send({ channel: 'whatsapp', to: '+2348031234567', text: 'Hi' });
    assert.equal(whatsapp.error, 'WhatsApp is not configured: set WHATSAPP_FROM');
  });

  test('a configured channel goes to its transport: e-mail to SMTP_URL, with MAIL_FROM as sender', async () => {
    const smtp = await startSmtpServer();
    try {
      const ports = createPorts(loadConfig({ SMTP_URL: smtp.url, MAIL_FROM: FROM }));
      const receipt = await ports
        .messages('live')
        .send({ channel: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Hi' });
      assert.equal(receipt.status, 'sent', receipt.error ?? '');
      assert.equal(receipt.provider, 'smtp');
      assert.match(smtp.received[0]?.raw ?? '', /^From: paytrack <no-reply@paytrack\.test>\r$/m);
    } finally {
      await closeSmtp(smtp.server);
    }
  });

  test('test mode stays simulated even with every transport configured', async () => {
    const smtp = await startSmtpServer();
    try {
      const ports = createPorts(
        loadConfig({
          SMTP_URL: smtp.url,
          MESSAGE_PROVIDER_URL: `http://127.0.0.1:${await closedPort()}`,
          MESSAGE_PROVIDER_API_KEY: 'k',
          SMS_FROM: 'PAYTRACK',
          WHATSAPP_FROM: '+2348000000001',
        }),
      );
      for (const channel of ['email', 'sms', 'whatsapp'] as const) {
        const receipt = await ports.messages('test').send({ channel, to: 'ada@example.com', text: 'Hi' });
        assert.equal(receipt.status, 'simulated');
        assert.equal(receipt.provider, 'simulator');
      }
      assert.equal(smtp.received.length, 0, 'nothing reached the SMTP server');
    } finally {
      await closeSmtp(smtp.server);
    }
  });
});
