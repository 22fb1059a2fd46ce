import type { Mode } from '../../lib/tenant.js';
import type { PhoneChannel } from '../../ports/phone-messages.js';

export const MESSAGE_PROVIDERS = ['twilio', 'africastalking', 'http'] as const;
export type MessageProviderName = (typeof MESSAGE_PROVIDERS)[number];

/** A workspace's SMS and WhatsApp provider for one mode. */
export interface MessageSettingsTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  provider: MessageProviderName;
  /** JSON of the provider's credentials (Twilio: accountSid, authToken; Africa's Talking: username, apiKey), sealed. */
  credentials: string;
  /** What may be shown of them: the account or user name, and the secret's last four characters. */
  credentials_hint: string;
  sms_from: string | null;
  whatsapp_from: string | null;
  /** Random; in the callback URL's query (`token`), which Africa's Talking's unsigned callbacks are checked by. */
  callback_token: string;
  created_at: string;
  updated_at: string;
}

/** A provider's callback, kept by its id so that a second delivery changes nothing. */
export interface MessageCallbackEventsTable {
  setting_id: string;
  event_id: string;
  outcome: string;
  received_at: string;
}

export const INBOUND_ACTIONS = ['opt_out', 'opt_in', 'none'] as const;
export type InboundAction = (typeof INBOUND_ACTIONS)[number];

/** A message a customer sent the business (a reply to a reminder, STOP, START). */
export interface InboundMessagesTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  /** Null when no customer of the workspace has the number. */
  customer_id: string | null;
  channel: PhoneChannel;
  from_number: string;
  text: string;
  action: InboundAction;
  provider: string;
  provider_message_id: string | null;
  received_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    message_settings: MessageSettingsTable;
    message_callback_events: MessageCallbackEventsTable;
    inbound_messages: InboundMessagesTable;
  }
}
