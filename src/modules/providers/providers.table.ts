import type { Mode } from '../../lib/tenant.js';

/** A workspace's settings for one payment provider, in one mode. */
export interface ProviderSettingsTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  provider: string;
  /** 1 when the provider has approved automatic debit for the workspace (live mode needs it). */
  approved: number;
  /** Signs the provider's notifications (HMAC-SHA256 of the raw body, hex). Kept as printed once. */
  notification_secret: string;
  /** The provider's secret key, sealed (lib/secret-box.ts); null for a setting without a live adapter's key. */
  secret_key: string | null;
  /** Stripe's endpoint signing secret, sealed; Paystack signs with the secret key. */
  webhook_secret: string | null;
  /** The secret key's last four characters, the one part of it ever shown. */
  key_last4: string | null;
  /** Comma-separated rails this provider serves in this mode: `checkout`, `virtual_account`, `debit`. */
  rails: string;
  created_at: string;
  updated_at: string;
}

/** A provider's own webhook event, kept by the provider's event id so that a second delivery changes nothing. */
export interface ProviderWebhookEventsTable {
  setting_id: string;
  event_id: string;
  type: string;
  /** `handled`, `ignored`, or `unmatched` (money recorded unapplied). */
  outcome: string;
  detail: string | null;
  received_at: string;
}

export const NOTIFICATION_OUTCOMES = [
  'recorded',
  'unapplied',
  'already_recorded',
  'unmatched',
  'refused',
] as const;
export type NotificationOutcome = (typeof NOTIFICATION_OUTCOMES)[number];

/** A notification a provider sent, kept by its id so that a second delivery changes nothing. */
export interface ProviderNotificationsTable {
  setting_id: string;
  notification_id: string;
  type: string;
  reference: string;
  outcome: NotificationOutcome;
  payment_id: string | null;
  reason: string | null;
  received_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    provider_settings: ProviderSettingsTable;
    provider_notifications: ProviderNotificationsTable;
    provider_webhook_events: ProviderWebhookEventsTable;
  }
}
