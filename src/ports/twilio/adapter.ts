import type {
  PhoneAdapterFactory,
  PhoneChannel,
  PhoneMessage,
  PhoneMessageAdapter,
  SendResult,
} from '../phone-messages.js';
import { readTwilioCallback } from './callbacks.js';
import {
  type CreateMessageParams,
  createTwilioClient,
  type TwilioAnswer,
  TwilioTransportError,
} from './client.js';

const DEFAULT_TIMEOUT_MS = 10_000;
const DAY_MS = 24 * 60 * 60_000;

/**
 * Error codes of Create a Message that mean "try later" rather than "no" (Twilio's error dictionary): 20429, too
 * many concurrent requests, never processed; 21611, the sender's queue is full.
 */
export const TWILIO_RETRY_LATER: ReadonlySet<number> = new Set([20429, 21611]);

/** A Messaging Service SID: Twilio takes it as `MessagingServiceSid` in place of `From`. */
const MESSAGING_SERVICE_SID = /^MG[0-9a-fA-F]{32}$/;

function failed(providerCode: string, message: string, retryable: boolean): SendResult {
  return { status: 'failed', providerCode, message, retryable };
}

function sender(
  from: string,
  channel: PhoneChannel,
): Pick<CreateMessageParams, 'From' | 'MessagingServiceSid'> {
  if (channel === 'sms' && MESSAGING_SERVICE_SID.test(from)) return { MessagingServiceSid: from };
  return { From: channel === 'whatsapp' ? `whatsapp:${from}` : from };
}

function readAnswer(answer: TwilioAnswer): SendResult {
  if (answer.kind === 'created') {
    if (answer.message) return { status: 'sent', providerMessageId: answer.message.sid };
    // Accepted, but without a SID we can never match its receipts: as uncertain as a timeout.
    return failed(
      'unreadable_answer',
      `Twilio answered HTTP ${answer.httpStatus} without a message SID.`,
      true,
    );
  }
  const { httpStatus, error } = answer;
  const said = error ? `Twilio error ${error.code}: ${error.message}` : `Twilio answered HTTP ${httpStatus}.`;
  if (httpStatus === 429) return failed('rate_limited', said, true);
  if (httpStatus >= 500) return failed('http_5xx', said, true);
  if (!error) return failed(`http_${httpStatus}`, said, false);
  return failed(String(error.code), said, TWILIO_RETRY_LATER.has(error.code));
}

/**
 * Twilio's Messages resource: SMS from `smsFrom` (a number, an alphanumeric sender ID or a Messaging Service SID)
 * and WhatsApp from `whatsappFrom`, each with `StatusCallback` set to our callback URL. Twilio keeps no client
 * reference on a Message and has no idempotency key for it, so `reference` is not sent.
 */
export const createTwilioAdapter: PhoneAdapterFactory = (credentials, options = {}) => {
  const accountSid = credentials.values.accountSid ?? '';
  const authToken = credentials.values.authToken ?? '';
  const client = createTwilioClient({
    apiUrl: credentials.apiUrl,
    accountSid,
    authToken,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });
  const senders: Record<PhoneChannel, string | null> = {
    sms: credentials.smsFrom,
    whatsapp: credentials.whatsappFrom,
  };
  const channels = new Set<PhoneChannel>(
    (Object.keys(senders) as PhoneChannel[]).filter((channel) => senders[channel] !== null),
  );

  const adapter: PhoneMessageAdapter = {
    name: 'twilio',
    channels,
    async lookupSent(message: PhoneMessage) {
      const from = senders[message.channel];
      const prefix = message.channel === 'whatsapp' ? 'whatsapp:' : '';
      const filter = {
        To: `${prefix}${message.to}`,
        ...(from && !MESSAGING_SERVICE_SID.test(from) ? { From: `${prefix}${from}` } : {}),
      };
      let listed: Awaited<ReturnType<typeof client.listMessages>>;
      try {
        listed = await client.listMessages(filter);
      } catch (error) {
        if (error instanceof TwilioTransportError) return undefined;
        throw error;
      }
      if (listed === null) return undefined;
      // Twilio's own clock, against the wall clock: within a day, the same text to the same number is this one.
      const recent = (created: string | null) =>
        created !== null && Date.now() - Date.parse(created) < DAY_MS;
      return listed.find((m) => m.body === message.text && recent(m.date_created))?.sid ?? null;
    },
    async send(message: PhoneMessage): Promise<SendResult> {
      const from = senders[message.channel];
      // Twilio has no default sender: without one the channel is not set up.
      if (from === null) {
        return failed('no_sender', `No ${message.channel} sender is set up for Twilio.`, false);
      }
      const params: CreateMessageParams = {
        To: message.channel === 'whatsapp' ? `whatsapp:${message.to}` : message.to,
        ...sender(from, message.channel),
        Body: message.text,
        StatusCallback: credentials.callbackUrl,
      };
      try {
        return readAnswer(await client.createMessage(params));
      } catch (error) {
        if (error instanceof TwilioTransportError) return failed(error.kind, error.message, true);
        throw error;
      }
    },
    parseCallback(raw, _callbackToken) {
      // Twilio signs every callback with the Auth Token over the URL (and its query); there is no separate token.
      return readTwilioCallback(raw, authToken);
    },
  };
  return adapter;
};
