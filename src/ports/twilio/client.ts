import { request } from 'undici';

/**
 * Twilio's 2010-04-01 REST API as the adapter uses it: form-encoded requests, HTTP basic auth (Account SID and
 * Auth Token), JSON answers (the `.json` suffix). Errors carry `{ code, message, more_info, status }`
 * (https://www.twilio.com/docs/usage/twilios-response).
 */
export interface TwilioError {
  code: number;
  message: string;
  more_info?: string;
  status?: number;
}

/** The Message resource as Create answers it (the fields the adapter reads). */
export interface TwilioMessage {
  sid: string;
  status: string;
  to: string;
  from: string | null;
  error_code: number | null;
  error_message: string | null;
}

/** The parameters of Create a Message we send. */
export interface CreateMessageParams {
  To: string;
  Body: string;
  /** Either From or MessagingServiceSid names the sender. */
  From?: string;
  MessagingServiceSid?: string;
  StatusCallback?: string;
}

export type TwilioAnswer =
  | { kind: 'created'; httpStatus: number; message: TwilioMessage | null }
  | { kind: 'error'; httpStatus: number; error: TwilioError | null };

/** No answer at all: the message may or may not have reached Twilio. */
export class TwilioTransportError extends Error {
  constructor(
    readonly kind: 'timeout' | 'network',
    message: string,
  ) {
    super(message);
    this.name = 'TwilioTransportError';
  }
}

export interface TwilioClient {
  createMessage(params: CreateMessageParams): Promise<TwilioAnswer>;
  /** Read multiple Message resources, newest first, filtered by To and From (one page). Null when not readable. */
  listMessages(filter: { To: string; From?: string }): Promise<ListedMessage[] | null>;
}

/** A Message as the list answers it (the fields the lookup reads). */
export interface ListedMessage {
  sid: string;
  body: string | null;
  date_created: string | null;
}

function isTwilioError(value: unknown): value is TwilioError {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { code?: unknown }).code === 'number' &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

function isMessage(value: unknown): value is TwilioMessage {
  return typeof value === 'object' && value !== null && typeof (value as { sid?: unknown }).sid === 'string';
}

function describe(error: unknown, timeoutMs: number): TwilioTransportError {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return new TwilioTransportError('timeout', `no answer from Twilio within ${timeoutMs} ms`);
  }
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return new TwilioTransportError('network', typeof code === 'string' ? `${code}: ${message}` : message);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Typed calls with a hard deadline (an AbortSignal). The Auth Token goes in the Authorization header only, never
 * in a message.
 */
export function createTwilioClient(options: {
  apiUrl: string;
  accountSid: string;
  authToken: string;
  timeoutMs: number;
}): TwilioClient {
  const root = options.apiUrl.replace(/\/+$/, '');
  const basic = Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64');
  const messagesUrl = `${root}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`;
  return {
    async createMessage(params) {
      const form = new URLSearchParams();
      for (const [name, value] of Object.entries(params)) {
        if (typeof value === 'string') form.append(name, value);
      }
      try {
        const response = await request(messagesUrl, {
          method: 'POST',
          headers: {
            authorization: `Basic ${basic}`,
            accept: 'application/json',
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: form.toString(),
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        const parsed = parseJson(await response.body.text());
        const httpStatus = response.statusCode;
        if (httpStatus >= 200 && httpStatus < 300) {
          return { kind: 'created', httpStatus, message: isMessage(parsed) ? parsed : null };
        }
        return { kind: 'error', httpStatus, error: isTwilioError(parsed) ? parsed : null };
      } catch (error) {
        throw describe(error, options.timeoutMs);
      }
    },
    async listMessages(filter) {
      const query = new URLSearchParams({ ...filter, PageSize: '50' });
      try {
        const response = await request(`${messagesUrl}?${query}`, {
          method: 'GET',
          headers: { authorization: `Basic ${basic}`, accept: 'application/json' },
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        const parsed = parseJson(await response.body.text()) as { messages?: unknown } | null;
        if (response.statusCode !== 200 || !Array.isArray(parsed?.messages)) return null;
        return parsed.messages as ListedMessage[];
      } catch (error) {
        throw describe(error, options.timeoutMs);
      }
    },
  };
}
