import type { PhoneAdapterFactory, PhoneChannel, PhoneMessage, SendResult } from '../phone-messages.js';
import { checkCallbackToken, readAfricastalkingCallback } from './callbacks.js';
import {
  type AfricastalkingAnswer,
  type AfricastalkingRecipient,
  AfricastalkingTransportError,
  createAfricastalkingClient,
} from './client.js';
import { RECIPIENT_STATUSES } from './statuses.js';

const DEFAULT_TIMEOUT_MS = 10_000;

export const AFRICASTALKING_LIVE_URL = 'https://api.africastalking.com';
/** The sandbox app (username `sandbox`) has its own host: the live one refuses sandbox keys. */
export const AFRICASTALKING_SANDBOX_URL = 'https://api.sandbox.africastalking.com';

/** The API root for a username: a `sandbox` app left on the live default goes to the sandbox host instead. */
export function africastalkingApiUrl(username: string, configured: string): string {
  const root = configured.replace(/\/+$/, '');
  return username === 'sandbox' && root === AFRICASTALKING_LIVE_URL ? AFRICASTALKING_SANDBOX_URL : root;
}

/** Bulk SMS on the form-encoded endpoint, the one both the live and the sandbox hosts serve. */
const SEND_PATH = '/version1/messaging';

const failed = (providerCode: string, message: string, retryable: boolean): SendResult => ({
  status: 'failed',
  providerCode,
  message,
  retryable,
});

function recipientResult(recipient: AfricastalkingRecipient): SendResult {
  const known = RECIPIENT_STATUSES[recipient.statusCode];
  const messageId = recipient.messageId;
  if (known?.accepted && messageId && messageId !== 'None')
    return { status: 'sent', providerMessageId: messageId };
  const status = recipient.status || known?.status || String(recipient.statusCode);
  return failed(
    status,
    `Africa's Talking refused the message: ${status} (statusCode ${recipient.statusCode}).`,
    known?.retryable ?? recipient.statusCode >= 500,
  );
}

function answerResult(answer: AfricastalkingAnswer, to: string): SendResult {
  const { httpStatus, body } = answer;
  if (httpStatus === 429) return failed('rate_limited', "Africa's Talking is limiting our requests.", true);
  if (httpStatus >= 500) {
    return failed(`http_${httpStatus}`, `Africa's Talking answered HTTP ${httpStatus}: ${answer.text}`, true);
  }
  if (body) {
    const recipients = body.SMSMessageData.Recipients;
    const recipient = recipients.find((r) => r.number === to) ?? recipients[0];
    if (recipient) return recipientResult(recipient);
    // No recipient at all: the whole request was refused and `Message` names why (e.g. InvalidSenderId).
    const reason = body.SMSMessageData.Message || `http_${httpStatus}`;
    return failed(reason, `Africa's Talking refused the message: ${reason}.`, false);
  }
  if (httpStatus >= 200 && httpStatus < 300) {
    // Accepted or not, we cannot tell: sending again could reach the payer twice.
    return failed(
      'unreadable_answer',
      `Africa's Talking answered HTTP ${httpStatus} without its JSON body.`,
      false,
    );
  }
  return failed(`http_${httpStatus}`, `Africa's Talking answered HTTP ${httpStatus}: ${answer.text}`, false);
}

/**
 * Africa's Talking's SMS API (https://developers.africastalking.com/docs/sms). WhatsApp is a separate Chat API
 * there (another host, JSON, a WhatsApp business number), so this adapter sends SMS only. Delivery reports and
 * incoming messages go to the callback URLs set in its dashboard: nothing per message. Bulk SMS takes no client
 * reference, so `reference` stays with us.
 */
export const createAfricastalkingAdapter: PhoneAdapterFactory = (credentials, options = {}) => {
  const username = credentials.values.username ?? '';
  const client = createAfricastalkingClient({
    apiUrl: africastalkingApiUrl(username, credentials.apiUrl),
    apiKey: credentials.values.apiKey ?? '',
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });
  const channels: ReadonlySet<PhoneChannel> = new Set<PhoneChannel>(['sms']);

  async function send(message: PhoneMessage): Promise<SendResult> {
    if (message.channel !== 'sms') {
      return failed(
        'channel_unsupported',
        `Africa's Talking's SMS API does not send ${message.channel}.`,
        false,
      );
    }
    const form: Record<string, string> = { username, to: message.to, message: message.text };
    // Without `from`, Africa's Talking uses the account's default sender (AFRICASTKNG).
    if (credentials.smsFrom) form.from = credentials.smsFrom;
    try {
      return answerResult(await client.post(SEND_PATH, form), message.to);
    } catch (error) {
      if (!(error instanceof AfricastalkingTransportError)) throw error;
      return failed(error.kind, `Africa's Talking: ${error.message}`, true);
    }
  }

  return {
    name: 'africastalking',
    channels,
    send,
    parseCallback(raw, callbackToken) {
      checkCallbackToken(raw, callbackToken);
      return readAfricastalkingCallback(raw.body);
    },
  };
};
