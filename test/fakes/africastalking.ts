import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for Africa's Talking's SMS API, written from its reference (developers.africastalking.com/
 * docs/sms): `POST /version1/messaging`, form-encoded, `apiKey` header; the `SMSMessageData` answer with a
 * status per recipient; its plain-text errors ("The supplied authentication is invalid", 401); and the delivery
 * reports and incoming messages it POSTs, form-encoded and unsigned, to the callback URLs of its dashboard.
 * What its docs leave out (the body of a 400 or a 404, the HTTP status of a refused recipient other than 409)
 * is answered in its plain-text manner and says so below.
 */

export type AfricastalkingSendOutcome =
  | 'accept'
  /** A recipient refusal by `statusCode` (401–409, 500–502) or status word (`InvalidPhoneNumber`). */
  | { reject: number | string }
  | 'timeout'
  | { status: 500 | 429 };

export interface AfricastalkingFakeOptions {
  username?: string;
  apiKey?: string;
  /** Our callback URL as set in the dashboard (with its `token`); callbacks are POSTed there when set. */
  callbackUrl?: string;
  /** Sender IDs the account may use in `from`; by default any. */
  senderIds?: string[];
  /** The short code incoming messages are sent to. */
  shortCode?: string;
  /** How long a `'timeout'` send holds its answer; by default until the fake closes. */
  delayMs?: number;
}

export interface LoggedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, string>;
  body: Record<string, string>;
}

export interface SentSms {
  messageId: string;
  to: string;
  message: string;
  from: string | null;
  params: Record<string, string>;
}

/** A callback as Africa's Talking sends it, shaped like the RawCallback the adapter reads. */
export interface FakeCallback {
  url: string;
  body: string;
  contentType: string;
  headers: Record<string, string>;
}

export interface AfricastalkingFake {
  /** The API root, no trailing slash: the adapter's `apiUrl`. */
  url: string;
  username: string;
  apiKey: string;
  requests: LoggedRequest[];
  sent: SentSms[];
  nextSend(outcome: AfricastalkingSendOutcome): void;
  /** The final delivery report of a sent message (Success, Failed or Rejected). */
  deliver(
    providerMessageId: string,
    outcome: 'delivered' | 'undelivered' | 'failed',
    errorCode?: string,
  ): Promise<FakeCallback>;
  /** Any delivery report, by Africa's Talking's own status word (Sent, Submitted, Buffered, AbsentSubscriber…). */
  report(providerMessageId: string, status: string, failureReason?: string): Promise<FakeCallback>;
  inbound(from: string, text: string, channel?: 'sms' | 'whatsapp'): Promise<FakeCallback>;
  /** A callback URL carrying `token` (the dashboard's URL with its token replaced): for forged callbacks. */
  sign(callbackUrl: string, token: string | null): string;
  close(): Promise<void>;
}

const STATUS_WORDS: Record<number, string> = {
  401: 'RiskHold',
  402: 'InvalidSenderId',
  403: 'InvalidPhoneNumber',
  404: 'UnsupportedNumberType',
  405: 'InsufficientBalance',
  406: 'UserInBlacklist',
  407: 'CouldNotRoute',
  409: 'DoNotDisturbRejection',
  500: 'InternalServerError',
  501: 'GatewayError',
  502: 'RejectedByGateway',
};

/** Network codes of the notifications reference; 99999 (Athena) is the sandbox's own. */
const NETWORKS: [string, string][] = [
  ['+2547', '63902'],
  ['+234', '62130'],
  ['+256', '64110'],
  ['+255', '64004'],
  ['+250', '63510'],
];
const networkCodeOf = (phone: string) =>
  NETWORKS.find(([prefix]) => phone.startsWith(prefix))?.[1] ?? '99999';

const PHONE = /^\+?[1-9][0-9]{6,14}$/;
const COST = 'KES 0.8000';
const FORM = 'application/x-www-form-urlencoded';
const DEFAULT_CALLBACK = 'https://paytrack.example/callbacks/africastalking?token=at_callback_token_test';

class Answer {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly contentType: string,
  ) {}
}

const text = (status: number, body: string) => new Answer(status, body, 'text/plain; charset=utf-8');

function xmlEscape(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Without `Accept: application/json` Africa's Talking answers XML, its default. */
function sendAnswer(
  status: number,
  data: { Message: string; Recipients: Record<string, unknown>[] },
  json: boolean,
) {
  if (json) return new Answer(status, JSON.stringify({ SMSMessageData: data }), 'application/json');
  const recipients = data.Recipients.map(
    (r) =>
      `<Recipient>${Object.entries(r)
        .map(([k, v]) => `<${k}>${xmlEscape(String(v))}</${k}>`)
        .join('')}</Recipient>`,
  ).join('');
  return new Answer(
    status,
    `<?xml version="1.0" encoding="UTF-8"?><AfricasTalkingResponse><SMSMessageData><Message>${xmlEscape(data.Message)}</Message><Recipients>${recipients}</Recipients></SMSMessageData></AfricasTalkingResponse>`,
    'application/xml',
  );
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export async function startAfricastalkingFake(
  options: AfricastalkingFakeOptions = {},
): Promise<AfricastalkingFake> {
  const username = options.username ?? 'paytrack-test';
  const apiKey = options.apiKey ?? 'atsk_fake0000000000000000000000000000000000000000000000000000000000';
  const shortCode = options.shortCode ?? '20880';
  const requests: LoggedRequest[] = [];
  const sent: SentSms[] = [];
  const outcomes: AfricastalkingSendOutcome[] = [];
  const held = new Set<() => void>();

  const messageId = () => `ATXid_${randomBytes(16).toString('hex')}`;

  function refusedRecipient(number: string, code: number) {
    return { statusCode: code, number, status: STATUS_WORDS[code] ?? 'Failed', cost: '0', messageId: 'None' };
  }

  function rejectionCode(reject: number | string): number {
    if (typeof reject === 'number') return reject;
    const found = Object.entries(STATUS_WORDS).find(([, word]) => word === reject);
    if (!found) throw new Error(`Africa's Talking has no recipient status ${reject}`);
    return Number(found[0]);
  }

  async function hold(): Promise<void> {
    await new Promise<void>((resolve) => {
      const release = () => {
        held.delete(release);
        resolve();
      };
      held.add(release);
      if (options.delayMs !== undefined) setTimeout(release, options.delayMs);
    });
  }

  async function sendSms(req: IncomingMessage, form: URLSearchParams): Promise<Answer> {
    const json = (header(req, 'accept') ?? '').includes('application/json');
    // Undocumented bodies: Africa's Talking answers these in plain text.
    if (!(header(req, 'content-type') ?? '').startsWith(FORM)) {
      return text(400, 'Request body must be application/x-www-form-urlencoded');
    }
    if (header(req, 'apikey') !== apiKey) return text(401, 'The supplied authentication is invalid');
    for (const field of ['username', 'to', 'message']) {
      if (!form.get(field)) return text(400, `Request is missing required form field '${field}'`);
    }
    // The key belongs to one app: another username is the same refusal.
    if (form.get('username') !== username) return text(401, 'The supplied authentication is invalid');
    const from = form.get('from');
    if (from && options.senderIds && !options.senderIds.includes(from)) {
      // As the medic/cht-core integration saw it: no recipients, the refusal in `Message`.
      return sendAnswer(201, { Message: 'InvalidSenderId', Recipients: [] }, json);
    }
    const outcome = outcomes.shift() ?? 'accept';
    if (typeof outcome === 'object' && 'status' in outcome) {
      return outcome.status === 429 ? text(429, 'Too Many Requests') : text(500, 'Internal Server Error');
    }
    const numbers = (form.get('to') ?? '').split(',').map((n) => n.trim());
    const params = Object.fromEntries(form);
    const recipients = numbers.map((number) => {
      if (!PHONE.test(number)) return refusedRecipient(number, 403);
      if (typeof outcome === 'object') return refusedRecipient(number, rejectionCode(outcome.reject));
      const id = messageId();
      sent.push({
        messageId: id,
        to: number,
        message: form.get('message') ?? '',
        from: from ?? null,
        params,
      });
      return { statusCode: 101, number, status: 'Success', cost: COST, messageId: id };
    });
    const accepted = recipients.filter((r) => r.statusCode === 101).length;
    const data = {
      Message: `Sent to ${accepted}/${recipients.length} Total Cost: ${accepted ? `KES ${(0.8 * accepted).toFixed(4)}` : '0'}`,
      Recipients: recipients,
    };
    if (outcome === 'timeout') {
      // Recorded (Africa's Talking has the message), then answered later than the client waits.
      await hold();
    }
    // The one refusal whose HTTP status the docs give: DoNotDisturbRejection comes with 409.
    const dnd = accepted === 0 && recipients.some((r) => r.statusCode === 409);
    return sendAnswer(dnd ? 409 : 201, data, json);
  }

  async function route(req: IncomingMessage, raw: string): Promise<Answer> {
    const target = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const form = new URLSearchParams(raw);
    requests.push({
      method,
      path: target.pathname,
      headers: { ...req.headers },
      query: Object.fromEntries(target.searchParams),
      body: Object.fromEntries(form),
    });
    if (target.pathname === '/version1/messaging') {
      if (method !== 'POST') return text(405, 'Method Not Allowed');
      return sendSms(req, form);
    }
    return text(404, 'Not Found');
  }

  async function callback(fields: Record<string, string>): Promise<FakeCallback> {
    const url = options.callbackUrl ?? DEFAULT_CALLBACK;
    const body = new URLSearchParams(fields).toString();
    const call: FakeCallback = { url, body, contentType: FORM, headers: { 'content-type': FORM } };
    if (options.callbackUrl) {
      const response = await fetch(url, { method: 'POST', headers: call.headers, body });
      await response.arrayBuffer();
    }
    return call;
  }

  function report(providerMessageId: string, status: string, failureReason?: string): Promise<FakeCallback> {
    const message = sent.find((m) => m.messageId === providerMessageId);
    if (!message) throw new Error(`Africa's Talking sent no message ${providerMessageId}`);
    const fields: Record<string, string> = {
      id: providerMessageId,
      status,
      phoneNumber: message.to,
      networkCode: networkCodeOf(message.to),
    };
    // failureReason comes with Rejected and Failed only; retryCount with premium messages only.
    if ((status === 'Rejected' || status === 'Failed') && failureReason) fields.failureReason = failureReason;
    return callback(fields);
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      route(req, Buffer.concat(chunks).toString('utf8'))
        .then((answer) => {
          if (res.destroyed) return;
          res.writeHead(answer.status, { 'content-type': answer.contentType }).end(answer.body);
        })
        .catch((error: unknown) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(String(error));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    username,
    apiKey,
    requests,
    sent,
    nextSend: (outcome) => {
      outcomes.push(outcome);
    },
    deliver: (providerMessageId, outcome, errorCode) => {
      if (outcome === 'delivered') return report(providerMessageId, 'Success');
      return report(
        providerMessageId,
        outcome === 'undelivered' ? 'Failed' : 'Rejected',
        errorCode ?? 'DeliveryFailure',
      );
    },
    report,
    inbound: (from, body, channel = 'sms') => {
      if (channel !== 'sms') throw new Error("Africa's Talking's SMS callbacks carry SMS only");
      return callback({
        date: new Date().toISOString(),
        from,
        to: shortCode,
        text: body,
        id: randomUUID(),
        linkId: randomUUID(),
        networkCode: networkCodeOf(from),
      });
    },
    sign: (callbackUrl, token) => {
      const target = new URL(callbackUrl);
      if (token === null) target.searchParams.delete('token');
      else target.searchParams.set('token', token);
      return target.toString();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const release of [...held]) release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
