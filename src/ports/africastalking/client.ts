import { request } from 'undici';

/** One recipient of a Send SMS answer. `messageId` is "None" when it was refused. */
export interface AfricastalkingRecipient {
  statusCode: number;
  number: string;
  status: string;
  cost: string;
  messageId: string;
}

/** The Send SMS answer: `Message` sums it up (or names a refusal of the whole request, e.g. InvalidSenderId). */
export interface AfricastalkingSendAnswer {
  SMSMessageData: { Message: string; Recipients: AfricastalkingRecipient[] };
}

export interface AfricastalkingAnswer {
  httpStatus: number;
  /** Null when the body was not the JSON send answer (its errors come as plain text, e.g. a 401). */
  body: AfricastalkingSendAnswer | null;
  /** The body as text, cut short, for messages: Africa's Talking's errors are plain sentences. */
  text: string;
}

/** No answer at all: the request may or may not have reached Africa's Talking. */
export class AfricastalkingTransportError extends Error {
  constructor(
    readonly kind: 'timeout' | 'network',
    message: string,
  ) {
    super(message);
    this.name = 'AfricastalkingTransportError';
  }
}

export interface AfricastalkingClient {
  post(path: string, form: Record<string, string>): Promise<AfricastalkingAnswer>;
}

function isSendAnswer(value: unknown): value is AfricastalkingSendAnswer {
  const data = (value as { SMSMessageData?: unknown } | null)?.SMSMessageData;
  return (
    typeof data === 'object' &&
    data !== null &&
    Array.isArray((data as { Recipients?: unknown }).Recipients) &&
    typeof (data as { Message?: unknown }).Message === 'string'
  );
}

function describe(error: unknown, timeoutMs: number): AfricastalkingTransportError {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return new AfricastalkingTransportError(
      'timeout',
      `no answer from Africa's Talking within ${timeoutMs} ms`,
    );
  }
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return new AfricastalkingTransportError(
    'network',
    typeof code === 'string' ? `${code}: ${message}` : message,
  );
}

/**
 * Form-encoded POSTs with a hard deadline (an AbortSignal: undici's own timeouts fire late). The API key goes in
 * the `apiKey` header only, never in a message. `Accept: application/json`, or Africa's Talking answers XML.
 */
export function createAfricastalkingClient(options: {
  apiUrl: string;
  apiKey: string;
  timeoutMs: number;
}): AfricastalkingClient {
  const root = options.apiUrl.replace(/\/+$/, '');
  return {
    async post(path, form) {
      try {
        const response = await request(`${root}${path}`, {
          method: 'POST',
          headers: {
            apikey: options.apiKey,
            accept: 'application/json',
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams(form).toString(),
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        const text = await response.body.text();
        let parsed: unknown = null;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = null;
        }
        return {
          httpStatus: response.statusCode,
          body: isSendAnswer(parsed) ? parsed : null,
          text: text.trim().slice(0, 200),
        };
      } catch (error) {
        throw describe(error, options.timeoutMs);
      }
    },
  };
}
