import { CallbackSignatureError, type MessageCallbackEvent, type RawCallback } from '../phone-messages.js';
import { isTwilioSignature, readForm, SIGNATURE_HEADER } from './signature.js';

type OurStatus = 'sent' | 'delivered' | 'undelivered' | 'failed';

/**
 * A Message's `MessageStatus` in a status callback, in our words (Message resource, "Message status values").
 * Statuses absent here are ignored: `queued`, `accepted`, `scheduled` and `sending` say nothing that the accepted
 * send did not (Twilio sends no callback for the initial status anyway); `receiving`/`received` belong to inbound
 * messages; `partially_delivered` is a multi-part outcome with no single meaning for one recipient.
 */
export const TWILIO_STATUSES: Readonly<Record<string, OurStatus>> = {
  sent: 'sent',
  delivered: 'delivered',
  /** WhatsApp (and RCS) read receipts: read implies delivered. */
  read: 'delivered',
  undelivered: 'undelivered',
  failed: 'failed',
  /** A scheduled message canceled before it was sent: it will never go out. */
  canceled: 'failed',
};

const WHATSAPP_PREFIX = 'whatsapp:';

function header(headers: RawCallback['headers'], name: string): string | null {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    const first = Array.isArray(value) ? value[0] : value;
    return first ?? null;
  }
  return null;
}

const stripChannel = (address: string): string =>
  address.startsWith(WHATSAPP_PREFIX) ? address.slice(WHATSAPP_PREFIX.length) : address;

/**
 * Checks `X-Twilio-Signature` against the URL as called and the form parameters, keyed with the Auth Token, then
 * reads the callback: a status callback (it has `MessageStatus`) or an incoming message (`SmsStatus=received`).
 * Twilio sends no id of the callback itself, so the event id is the message SID and its status, which a redelivery
 * repeats.
 */
export function readTwilioCallback(raw: RawCallback, authToken: string): MessageCallbackEvent[] {
  const given = header(raw.headers, SIGNATURE_HEADER);
  if (!given) throw new CallbackSignatureError(`The ${SIGNATURE_HEADER} header is missing.`);
  const params = readForm(raw.body);
  if (!isTwilioSignature(authToken, raw.url, params, given)) {
    throw new CallbackSignatureError(`The ${SIGNATURE_HEADER} header does not match the URL and parameters.`);
  }
  const value = (name: string): string | null => params.get(name)?.[0] ?? null;
  const sid = value('MessageSid') ?? value('SmsSid');
  if (!sid) return [{ kind: 'ignored', eventId: 'twilio:no-message-sid' }];

  const messageStatus = value('MessageStatus');
  if (messageStatus !== null) {
    const eventId = `${sid}:${messageStatus}`;
    if (!Object.hasOwn(TWILIO_STATUSES, messageStatus)) return [{ kind: 'ignored', eventId }];
    const status = TWILIO_STATUSES[messageStatus]!;
    const errorCode = value('ErrorCode');
    return [
      {
        kind: 'status',
        eventId,
        providerMessageId: sid,
        status,
        errorCode: errorCode && errorCode !== '0' ? errorCode : null,
      },
    ];
  }

  const from = value('From');
  const to = value('To');
  if (value('SmsStatus') === 'received' && from && to) {
    return [
      {
        kind: 'inbound',
        eventId: `${sid}:received`,
        channel: from.startsWith(WHATSAPP_PREFIX) ? 'whatsapp' : 'sms',
        from: stripChannel(from),
        to: stripChannel(to),
        text: value('Body') ?? '',
        providerMessageId: sid,
      },
    ];
  }
  return [{ kind: 'ignored', eventId: `${sid}:${value('SmsStatus') ?? 'unknown'}` }];
}
