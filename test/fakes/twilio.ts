import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for Twilio's Messages resource (https://api.twilio.com/2010-04-01), written from its API
 * reference: Create a Message (form-encoded, HTTP basic auth with the Account SID and Auth Token), the Message
 * resource it answers with (201), the error body `{ code, message, more_info, status }`, and the form-encoded
 * status callbacks and incoming-message webhooks Twilio sends, signed with `X-Twilio-Signature` (HMAC-SHA1 of the
 * URL followed by the sorted parameters, keyed with the Auth Token, base64).
 */

export type TwilioSendOutcome =
  | 'accept'
  | { reject: number; status?: number; message?: string }
  | 'timeout'
  | { status: 500 | 429 | 503 };

export interface TwilioFakeOptions {
  accountSid?: string;
  authToken?: string;
  /** The senders the account owns (E.164, alphanumeric IDs, Messaging Service SIDs). */
  smsSenders?: string[];
  /** The WhatsApp senders the account owns (E.164, without the `whatsapp:` prefix). */
  whatsappSenders?: string[];
  /** When set, the callbacks `deliver` and `inbound` produce are POSTed to their URL on this origin (awaited). */
  callbackUrl?: string;
  /** The number's incoming-message webhook URL (set in Twilio's console, not per message); default callbackUrl. */
  incomingUrl?: string;
  /** How long a `'timeout'` send holds its answer; by default until the fake closes. */
  delayMs?: number;
}

export interface TwilioCallback {
  url: string;
  body: string;
  contentType: string;
  headers: Record<string, string>;
}

export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: Record<string, string>;
}

export interface SentMessage {
  sid: string;
  status: string;
  /** The parameters of the create request, as sent. */
  params: Record<string, string>;
}

export interface TwilioFake {
  /** The API root, no trailing slash: the adapter's `apiUrl`. */
  url: string;
  accountSid: string;
  authToken: string;
  smsFrom: string;
  whatsappFrom: string;
  requests: LoggedRequest[];
  /** Messages Twilio created (accepted), in order. */
  sent: SentMessage[];
  nextSend(outcome: TwilioSendOutcome): void;
  deliver(
    sid: string,
    status: 'delivered' | 'undelivered' | 'failed',
    errorCode?: string,
  ): Promise<TwilioCallback>;
  /** `incomingUrl`: the number's incoming-message webhook, when it is not the one the fake was started with. */
  inbound(
    from: string,
    text: string,
    channel?: 'sms' | 'whatsapp',
    to?: string,
    incomingUrl?: string,
  ): Promise<TwilioCallback>;
  /** The signature headers for any URL and form body, for forged and edited callbacks. */
  sign(url: string, body: string): Record<string, string>;
  close(): Promise<void>;
}

const E164 = /^\+[1-9][0-9]{6,14}$/;
const ALPHANUMERIC_SENDER = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/;
const MESSAGING_SERVICE_SID = /^MG[0-9a-fA-F]{32}$/;
const WHATSAPP = 'whatsapp:';
const FORM = 'application/x-www-form-urlencoded';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

class Answer {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

const twilioError = (status: number, code: number, message: string) =>
  new Answer(status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

/** Twilio's signature, as its Webhooks security guide describes it. */
function signature(authToken: string, url: string, body: string): string {
  const params = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(body))
    params.set(name, [...(params.get(name) ?? []), value]);
  let data = url;
  for (const name of [...params.keys()].sort()) {
    for (const value of [...new Set(params.get(name))].sort()) data += name + value;
  }
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

export async function startTwilioFake(options: TwilioFakeOptions = {}): Promise<TwilioFake> {
  const accountSid = options.accountSid ?? 'AC5ef8732a3c49700934481addd5ce1659';
  const authToken = options.authToken ?? 'f0a1b2c3d4e5f60718293a4b5c6d7e8f';
  const smsSenders = new Set(options.smsSenders ?? ['+15017122661']);
  const whatsappSenders = new Set(options.whatsappSenders ?? ['+14155238886']);
  const requests: LoggedRequest[] = [];
  const sent: SentMessage[] = [];
  const outcomes: TwilioSendOutcome[] = [];
  const messagesPath = `/2010-04-01/Accounts/${accountSid}/Messages.json`;
  let url = '';

  const rfc2822 = (date: Date) => date.toUTCString().replace('GMT', '+0000');

  function messageView(message: SentMessage) {
    const created = rfc2822(new Date());
    const uri = `/2010-04-01/Accounts/${accountSid}/Messages/${message.sid}.json`;
    return {
      account_sid: accountSid,
      api_version: '2010-04-01',
      body: message.params.Body,
      date_created: created,
      date_sent: null,
      date_updated: created,
      direction: 'outbound-api',
      error_code: null,
      error_message: null,
      from: message.params.From ?? null,
      messaging_service_sid: message.params.MessagingServiceSid ?? null,
      num_media: '0',
      num_segments: '1',
      price: null,
      price_unit: 'USD',
      sid: message.sid,
      status: message.status,
      subresource_uris: { media: `/2010-04-01/Accounts/${accountSid}/Messages/${message.sid}/Media.json` },
      to: message.params.To,
      uri,
    };
  }

  /** Create a Message's checks, in the order Twilio reports them. */
  function checkMessage(params: Record<string, string>): Answer | null {
    const { To: to, From: from, MessagingServiceSid: service, Body: body, StatusCallback: callback } = params;
    if (!to) return twilioError(400, 21604, "A 'To' phone number is required.");
    if (!from && !service) return twilioError(400, 21603, "A 'From' phone number is required.");
    if (!body) return twilioError(400, 21602, 'Message body is required.');
    if (body.length > 1600) {
      return twilioError(400, 21617, 'The concatenated message body exceeds the 1600 character limit.');
    }
    const toWhatsapp = to.startsWith(WHATSAPP);
    if (!E164.test(toWhatsapp ? to.slice(WHATSAPP.length) : to)) {
      return twilioError(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    }
    if (service) {
      if (!MESSAGING_SERVICE_SID.test(service) || !smsSenders.has(service)) {
        return twilioError(400, 21705, 'The Messaging Service Sid is invalid.');
      }
    } else if (from) {
      const fromWhatsapp = from.startsWith(WHATSAPP);
      if (fromWhatsapp !== toWhatsapp) {
        return twilioError(
          400,
          21910,
          'Invalid From and To pair. From and To should be of the same channel.',
        );
      }
      const address = fromWhatsapp ? from.slice(WHATSAPP.length) : from;
      const owned = fromWhatsapp
        ? whatsappSenders.has(address)
        : smsSenders.has(address) && (E164.test(address) || ALPHANUMERIC_SENDER.test(address));
      if (!owned) {
        return twilioError(
          400,
          fromWhatsapp ? 63007 : 21606,
          fromWhatsapp
            ? `Twilio could not find a Channel with the specified From address: ${from}`
            : `The From phone number ${from} is not a valid, SMS-capable inbound phone number or short code for your account.`,
        );
      }
    }
    if (callback !== undefined) {
      let valid = false;
      try {
        const parsed = new URL(callback);
        valid =
          (parsed.protocol === 'https:' || parsed.protocol === 'http:') && !parsed.hostname.includes('_');
      } catch {
        valid = false;
      }
      if (!valid) return twilioError(400, 21609, `The StatusCallback URL ${callback} is not a valid URL.`);
    }
    return null;
  }

  async function createMessage(params: Record<string, string>): Promise<Answer | null> {
    const outcome = outcomes.shift() ?? 'accept';
    // 429 and 5xx answers are never processed (error 20429: "always safe to retry").
    if (typeof outcome === 'object' && !('reject' in outcome)) {
      if (outcome.status === 429) {
        return twilioError(429, 20429, 'Too Many Requests');
      }
      return twilioError(outcome.status, 20500, 'An internal server error has occurred');
    }
    const invalid = checkMessage(params);
    if (invalid) return invalid;
    if (typeof outcome === 'object') {
      return twilioError(
        outcome.status ?? 400,
        outcome.reject,
        outcome.message ?? `Refused with ${outcome.reject}.`,
      );
    }
    const message: SentMessage = {
      sid: `SM${hex(16)}`,
      // Created through a Messaging Service it starts `accepted`, otherwise `queued` (Outbound Message Status guide).
      status: params.MessagingServiceSid ? 'accepted' : 'queued',
      params,
    };
    sent.push(message);
    if (outcome === 'timeout') {
      // Created: the message exists. The answer comes later than the client waits, if at all.
      if (options.delayMs === undefined) return null;
      await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    }
    return new Answer(201, messageView(message));
  }

  /** Read multiple Message resources: newest first, filtered by To and From, one page of PageSize (50). */
  function listMessages(query: URLSearchParams): Answer {
    const size = Math.min(Number(query.get('PageSize') ?? 50) || 50, 1000);
    const to = query.get('To');
    const from = query.get('From');
    const messages = [...sent]
      .reverse()
      .filter((m) => (to === null || m.params.To === to) && (from === null || m.params.From === from))
      .slice(0, size)
      .map(messageView);
    return new Answer(200, {
      messages,
      page: 0,
      page_size: size,
      uri: `${messagesPath}?PageSize=${size}&Page=0`,
      first_page_uri: `${messagesPath}?PageSize=${size}&Page=0`,
      next_page_uri: null,
      previous_page_uri: null,
      end: messages.length === 0 ? 0 : messages.length - 1,
      start: 0,
    });
  }

  async function route(req: IncomingMessage, raw: string): Promise<Answer | null> {
    const target = new URL(req.url ?? '/', 'http://fake.invalid');
    const method = req.method ?? 'GET';
    const isForm = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() === FORM;
    const body = isForm ? Object.fromEntries(new URLSearchParams(raw)) : {};
    requests.push({ method, path: target.pathname, query: Object.fromEntries(target.searchParams), body });
    const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
    if (req.headers.authorization !== expected) return twilioError(401, 20003, 'Authenticate');
    if (target.pathname === messagesPath && method === 'POST') return createMessage(body);
    if (target.pathname === messagesPath && method === 'GET') return listMessages(target.searchParams);
    if (target.pathname === messagesPath) return twilioError(405, 20004, 'Method not allowed');
    return twilioError(404, 20404, `The requested resource ${target.pathname} was not found`);
  }

  function signed(callbackUrl: string, params: Record<string, string>): TwilioCallback {
    const body = new URLSearchParams(params).toString();
    return { url: callbackUrl, body, contentType: FORM, headers: sign(callbackUrl, body) };
  }

  function sign(callbackUrl: string, body: string): Record<string, string> {
    return {
      'content-type': FORM,
      'x-twilio-signature': signature(authToken, callbackUrl, body),
      'user-agent': 'TwilioProxy/1.1',
    };
  }

  async function post(callback: TwilioCallback): Promise<void> {
    if (!options.callbackUrl) return;
    // Only the caller's own callback origin is ever contacted.
    if (new URL(callback.url).origin !== new URL(options.callbackUrl).origin) return;
    await fetch(callback.url, { method: 'POST', headers: callback.headers, body: callback.body });
  }

  async function deliver(
    sid: string,
    status: 'delivered' | 'undelivered' | 'failed',
    errorCode?: string,
  ): Promise<TwilioCallback> {
    const message = sent.find((m) => m.sid === sid);
    if (!message) throw new Error(`No message ${sid} was created at the Twilio fake.`);
    const target = message.params.StatusCallback ?? options.callbackUrl;
    if (!target)
      throw new Error(`Message ${sid} asked for no StatusCallback and the fake has no callbackUrl.`);
    message.status = status;
    const failure = status === 'delivered' ? null : (errorCode ?? (status === 'failed' ? '30008' : '30003'));
    // The parameters of a status callback (Track the Message Status of Outbound Messages guide).
    const callback = signed(target, {
      ...(failure ? { ErrorCode: failure } : {}),
      SmsSid: sid,
      SmsStatus: status,
      MessageStatus: status,
      To: message.params.To!,
      ...(message.params.MessagingServiceSid
        ? { MessagingServiceSid: message.params.MessagingServiceSid }
        : {}),
      MessageSid: sid,
      AccountSid: accountSid,
      From: message.params.From ?? [...whatsappSenders, ...smsSenders][0]!,
      ApiVersion: '2010-04-01',
    });
    await post(callback);
    return callback;
  }

  async function inbound(
    from: string,
    text: string,
    channel: 'sms' | 'whatsapp' = 'sms',
    to?: string,
    incomingUrl?: string,
  ): Promise<TwilioCallback> {
    const target = incomingUrl ?? options.incomingUrl ?? options.callbackUrl;
    if (!target)
      throw new Error('The Twilio fake needs incomingUrl or callbackUrl to send incoming messages.');
    const ours = to ?? (channel === 'whatsapp' ? [...whatsappSenders][0]! : [...smsSenders][0]!);
    const prefix = channel === 'whatsapp' ? WHATSAPP : '';
    const sid = `SM${hex(16)}`;
    // The parameters of Twilio's request to the incoming message webhook (Messaging webhook request guide).
    const callback = signed(target, {
      ...(channel === 'sms' ? { ToCountry: 'US', ToState: 'CA', FromCountry: 'NG' } : {}),
      SmsMessageSid: sid,
      NumMedia: '0',
      ...(channel === 'whatsapp'
        ? { ProfileName: 'Ada', WaId: from.replace('+', ''), MessageType: 'text' }
        : {}),
      SmsSid: sid,
      SmsStatus: 'received',
      Body: text,
      To: `${prefix}${ours}`,
      NumSegments: '1',
      ReferralNumMedia: '0',
      MessageSid: sid,
      AccountSid: accountSid,
      From: `${prefix}${from}`,
      ApiVersion: '2010-04-01',
    });
    await post(callback);
    return callback;
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      route(req, Buffer.concat(chunks).toString('utf8'))
        .then((answer) => {
          if (answer) {
            res
              .writeHead(answer.status, { 'content-type': 'application/json' })
              .end(JSON.stringify(answer.body));
          }
        })
        .catch((error: unknown) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ code: 20500, message: String(error), status: 500 }));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    accountSid,
    authToken,
    smsFrom: [...smsSenders][0]!,
    whatsappFrom: [...whatsappSenders][0]!,
    requests,
    sent,
    nextSend: (outcome) => {
      outcomes.push(outcome);
    },
    deliver,
    inbound,
    sign,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
