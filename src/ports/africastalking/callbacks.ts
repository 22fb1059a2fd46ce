import { createHash, timingSafeEqual } from 'node:crypto';
import { CallbackSignatureError, type MessageCallbackEvent, type RawCallback } from '../phone-messages.js';
import { DELIVERY_STATUSES } from './statuses.js';

/** The query parameter of our callback URL that carries the setting's callback token. */
export const CALLBACK_TOKEN_PARAMETER = 'token';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Africa's Talking signs nothing: its delivery reports and incoming messages are plain form POSTs to the URLs set
 * in its dashboard. The token in that URL is the only proof, compared in constant time (over digests, so that
 * its length does not show either).
 */
export function checkCallbackToken(raw: RawCallback, callbackToken: string): void {
  let given: string | null = null;
  try {
    given = new URL(raw.url, 'http://callback.invalid').searchParams.get(CALLBACK_TOKEN_PARAMETER);
  } catch {
    given = null;
  }
  if (!given)
    throw new CallbackSignatureError(`The callback URL has no ${CALLBACK_TOKEN_PARAMETER} parameter.`);
  if (!callbackToken || !timingSafeEqual(digest(given), digest(callbackToken))) {
    throw new CallbackSignatureError(`The callback URL's ${CALLBACK_TOKEN_PARAMETER} does not match.`);
  }
}

/** E.164 with its `+`: Africa's Talking sends `+254…`, but a bare run of digits is the same number. */
function e164(value: string): string {
  const trimmed = value.trim();
  return /^[0-9]{6,15}$/.test(trimmed) ? `+${trimmed}` : trimmed;
}

function deliveryReport(fields: URLSearchParams): MessageCallbackEvent {
  const id = fields.get('id') ?? '';
  const word = fields.get('status') ?? '';
  const status = Object.hasOwn(DELIVERY_STATUSES, word) ? DELIVERY_STATUSES[word] : undefined;
  // No id of its own: the message and its status tell one report from another, and a redelivery is the same.
  const eventId = `dlr:${id}:${word}`;
  if (!status || !id) return { kind: 'ignored', eventId };
  const failureReason = fields.get('failureReason') || null;
  const missed = status === 'undelivered' || status === 'failed';
  return {
    kind: 'status',
    eventId,
    providerMessageId: id,
    status,
    // failureReason comes with Rejected and Failed only; AbsentSubscriber and Expired are their own reason.
    errorCode: missed ? (failureReason ?? word) : null,
  };
}

function incomingMessage(fields: URLSearchParams): MessageCallbackEvent {
  const id = fields.get('id') ?? '';
  return {
    kind: 'inbound',
    eventId: `inbound:${id}`,
    channel: 'sms',
    from: e164(fields.get('from') ?? ''),
    to: e164(fields.get('to') ?? ''),
    text: fields.get('text') ?? '',
    providerMessageId: id,
  };
}

/**
 * A callback's form fields in our words. Delivery reports carry `id` and `status`; incoming messages carry
 * `from`, `to`, `text` and `id`. Opt-outs (`senderId`, `phoneNumber`) and premium subscription notices are
 * ignored.
 */
export function readAfricastalkingCallback(body: string): MessageCallbackEvent[] {
  const fields = new URLSearchParams(body);
  if (fields.has('text') && fields.has('from') && fields.get('id')) return [incomingMessage(fields)];
  if (fields.has('status') && fields.get('id')) return [deliveryReport(fields)];
  // Nothing to act on; the body itself names it, so a redelivery is the same event.
  return [{ kind: 'ignored', eventId: `other:${digest(body).toString('hex').slice(0, 32)}` }];
}
