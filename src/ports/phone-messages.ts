/**
 * What a real SMS and WhatsApp provider (Twilio, Africa's Talking) does for us, in our words. One adapter per
 * provider implements it over the provider's own API; the app never sees the provider's shapes.
 */

export type PhoneChannel = 'sms' | 'whatsapp';

/** A workspace's credentials for one message provider and mode, opened only to make the adapter. */
export interface PhoneProviderCredentials {
  /** Twilio: `accountSid` and `authToken`. Africa's Talking: `username` and `apiKey`. */
  values: Readonly<Record<string, string>>;
  /** The provider's API root without a trailing slash (TWILIO_API_URL, AFRICASTALKING_API_URL): fakes stand in. */
  apiUrl: string;
  /** Sender number or ID for SMS; null: the provider's default where it has one, else SMS cannot be sent. */
  smsFrom: string | null;
  /** Sender number for WhatsApp (E.164); null: WhatsApp cannot be sent. */
  whatsappFrom: string | null;
  /** Our callback URL for this setting (delivery receipts, inbound messages), as the provider must call it. */
  callbackUrl: string;
}

export interface PhoneMessage {
  channel: PhoneChannel;
  /** E.164. */
  to: string;
  text: string;
  /** Ours (the reminder log row's id): a retry of the same message carries the same one. */
  reference: string;
}

export type SendResult =
  /** Accepted by the provider: receipts for `providerMessageId` come later to the callback. */
  | { status: 'sent'; providerMessageId: string }
  | {
      status: 'failed';
      /** The provider's own error code or status, as it sent it. */
      providerCode: string;
      message: string;
      /** True for timeouts, 5xx and 429: try again later (the provider may have the message: see `reference`). */
      retryable: boolean;
    };

interface CallbackBase {
  /** The provider's id of this callback where it has one; else one derived so that a redelivery is the same. */
  eventId: string;
}

/** What a provider's callback says, in our words. */
export type MessageCallbackEvent =
  | (CallbackBase & {
      kind: 'status';
      providerMessageId: string;
      /** `sent` (handed to the network), `delivered`, `undelivered` (the network could not deliver it), `failed`. */
      status: 'sent' | 'delivered' | 'undelivered' | 'failed';
      /** The provider's error code or failure reason, when it gave one. */
      errorCode: string | null;
    })
  | (CallbackBase & {
      kind: 'inbound';
      channel: PhoneChannel;
      /** E.164, the `whatsapp:` prefix removed. */
      from: string;
      to: string;
      text: string;
      providerMessageId: string;
    })
  | (CallbackBase & { kind: 'ignored' });

export interface RawCallback {
  /** The URL as the provider called it, scheme, host and query included (Twilio signs it). */
  url: string;
  /** The body exactly as it arrived. */
  body: string;
  contentType: string | null;
  headers: Record<string, string | string[] | undefined>;
}

/** A callback whose signature or token is missing or wrong: answered 401, nothing changes. */
export class CallbackSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallbackSignatureError';
  }
}

export interface PhoneAdapterOptions {
  /** How long one call may take before it counts as a timeout (default 10 s). */
  timeoutMs?: number;
}

export interface PhoneMessageAdapter {
  readonly name: 'twilio' | 'africastalking' | 'http';
  readonly channels: ReadonlySet<PhoneChannel>;
  send(message: PhoneMessage): Promise<SendResult>;
  /**
   * Before a message whose earlier try got no answer is sent again: the provider's id of it when the provider
   * already has it (sent to the same number with the same text in the last 24 hours), so it is not sent twice;
   * null when not; undefined when this provider cannot tell (it keeps no list of what it sent).
   */
  lookupSent?(message: PhoneMessage): Promise<string | null | undefined>;
  /**
   * Checks the callback's authenticity (Twilio: `X-Twilio-Signature`; Africa's Talking: `token`, the setting's
   * callback token in the callback URL's query, compared in constant time) and reads its events. Throws
   * CallbackSignatureError.
   */
  parseCallback(raw: RawCallback, callbackToken: string): MessageCallbackEvent[];
}

export type PhoneAdapterFactory = (
  credentials: PhoneProviderCredentials,
  options?: PhoneAdapterOptions,
) => PhoneMessageAdapter;
