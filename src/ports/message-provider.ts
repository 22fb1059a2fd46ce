import type { DeliveryReceipt, MessageSender } from './messages.js';
import { CallbackSignatureError, type PhoneAdapterFactory, type PhoneChannel } from './phone-messages.js';

export interface HttpMessageSenderOptions {
  /** The provider's API root, without a trailing slash; requests go to `{baseUrl}/messages`. */
  baseUrl: string;
  apiKey: string;
  /** Sender number or ID for SMS; SMS fails without it. */
  smsFrom: string | undefined;
  /** Sender number for WhatsApp; WhatsApp fails without it. */
  whatsappFrom: string | undefined;
  /** Shown as the receipt's provider. */
  name: string;
  timeoutMs?: number;
}

const MAX_BODY_IN_ERROR = 300;

/**
 * Sends SMS and WhatsApp messages through one HTTP message provider.
 *
 * Wire format:
 *
 *     POST {baseUrl}/messages
 *     Authorization: Bearer {apiKey}
 *     Content-Type: application/json
 *
 *     {"channel": "sms" | "whatsapp", "from": "<SMS_FROM or WHATSAPP_FROM>", "to": "<E.164 number>", "text": "..."}
 *
 * A 2xx answer whose JSON body has a string `id` means accepted; that id becomes the receipt's
 * `providerMessageId`. Any other status (redirects included), a 2xx without an `id`, a network error
 * or no answer within the timeout (10 s) is a failed receipt whose error tells which.
 */
export function httpMessageSender(options: HttpMessageSenderOptions): MessageSender {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const failed = (error: string): DeliveryReceipt => ({
    status: 'failed',
    provider: options.name,
    providerMessageId: null,
    error,
  });

  return {
    async send(message) {
      if (message.channel === 'email') return failed(`${options.name} carries SMS and WhatsApp, not e-mail`);
      const from = message.channel === 'sms' ? options.smsFrom : options.whatsappFrom;
      if (!from) return failed(`no sender is configured for ${message.channel}`);

      let response: Response;
      let body: string;
      try {
        response = await fetch(`${options.baseUrl}/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ channel: message.channel, from, to: message.to, text: message.text }),
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
        body = await response.text();
      } catch (error) {
        return failed(describeNetworkFailure(options.name, error, timeoutMs));
      }

      if (response.status < 200 || response.status > 299) {
        return failed(`${options.name} answered ${response.status}: ${truncate(body) || '(empty body)'}`);
      }
      const id = idIn(body);
      if (id === null) {
        return failed(`${options.name} answered ${response.status} without a message id: ${truncate(body)}`);
      }
      return { status: 'sent', provider: options.name, providerMessageId: id, error: null };
    },
  };
}

function idIn(body: string): string | null {
  try {
    const parsed: unknown = JSON.parse(body);
    const id = (parsed as { id?: unknown } | null)?.id;
    return typeof id === 'string' && id !== '' ? id : null;
  } catch {
    return null;
  }
}

function truncate(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > MAX_BODY_IN_ERROR ? `${trimmed.slice(0, MAX_BODY_IN_ERROR)}…` : trimmed;
}

function describeNetworkFailure(name: string, error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `${name} did not answer within ${timeoutMs / 1000} s`;
  }
  // fetch wraps the real reason (ECONNREFUSED, ENOTFOUND, ...) in `cause`.
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  const detail =
    typeof cause?.code === 'string'
      ? cause.code
      : typeof cause?.message === 'string'
        ? cause.message
        : error instanceof Error
          ? error.message
          : String(error);
  return `${name} could not be reached: ${detail}`;
}

/**
 * The HTTP message provider as a workspace's own (`paytrack messages set --provider http`): credentials `url`
 * (the API root) and `apiKey`; the wire format above. It sends no receipts or replies paytrack can read.
 */
export const createHttpPhoneAdapter: PhoneAdapterFactory = (credentials, options = {}) => {
  const sender = httpMessageSender({
    baseUrl: (credentials.values.url ?? '').replace(/\/+$/, ''),
    apiKey: credentials.values.apiKey ?? '',
    smsFrom: credentials.smsFrom ?? undefined,
    whatsappFrom: credentials.whatsappFrom ?? undefined,
    name: 'http',
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
  const channels = new Set<PhoneChannel>([
    ...(credentials.smsFrom ? (['sms'] as const) : []),
    ...(credentials.whatsappFrom ? (['whatsapp'] as const) : []),
  ]);
  return {
    name: 'http',
    channels,
    async send(message) {
      const receipt = await sender.send(message);
      return receipt.status === 'sent' && receipt.providerMessageId
        ? { status: 'sent', providerMessageId: receipt.providerMessageId }
        : { status: 'failed', providerCode: 'http', message: receipt.error ?? 'not sent', retryable: true };
    },
    parseCallback() {
      throw new CallbackSignatureError('The HTTP message provider sends no callbacks paytrack reads.');
    },
  };
};
