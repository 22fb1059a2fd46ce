import type { Mode } from '../../lib/tenant.js';
import type { Channel } from '../../ports/messages.js';
import type { ReminderStage } from '../schedules/index.js';

export const REMINDER_CHANNELS = ['email', 'sms', 'whatsapp'] as const satisfies readonly Channel[];
export const REMINDER_STATUSES = ['queued', 'sent', 'failed', 'cancelled', 'skipped'] as const;
export type ReminderStatus = (typeof REMINDER_STATUSES)[number];

/** Why a reminder was not sent. */
export const SKIP_REASONS = [
  'obligation_paid',
  'obligation_cancelled',
  'plan_paid',
  'schedule_paused',
  'schedule_cancelled',
  'attempt_processing',
  'superseded',
  'opted_out',
  'frequency_cap',
  'obligation_written_off',
  'obligation_waived',
  'promise_open',
  'dispute_open',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/**
 * Why a reminder was withdrawn: the business archived its customer or its plan, or the customer page link it
 * was to send was revoked or expired before it was sent.
 */
export const CANCEL_REASONS = ['customer_archived', 'plan_archived', 'link_unavailable'] as const;

export type ReminderSource = 'api' | 'schedule' | 'receipt';

export interface RemindersTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  customer_id: string;
  track_id: string | null;
  obligation_id: string | null;
  channel: Channel;
  recipient: string;
  /** E-mail only. */
  subject: string | null;
  message: string;
  /** 1: written from a template, and written again with the figures of the moment when sent. */
  templated: number;
  status: ReminderStatus;
  skip_reason: string | null;
  send_at: string;
  next_try_at: string | null;
  claimed_until: string | null;
  sent_at: string | null;
  attempts: number;
  last_error: string | null;
  source: ReminderSource;
  stage: ReminderStage | null;
  /** The SMS or WhatsApp reminder this e-mail stands in for, because it was not delivered; null otherwise. */
  fallback_of: string | null;
  /** A receipt message: the payment whose receipt it sends (an e-mail attaches its PDF). */
  payment_id: string | null;
  /** The customer page link its text carries (`{customer_page_link}`), given its token when it is sent. */
  portal_link_id: string | null;
  created_at: string;
  updated_at: string;
}

export type ReminderLogStatus = 'sent' | 'delivered' | 'undelivered' | 'failed' | 'simulated' | 'skipped';

/** Why a message was held back by the contact policy, as its log row says. */
export type LogSkipReason = 'opted_out' | 'quiet_hours' | 'frequency_cap';

export interface ReminderLogsTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  reminder_id: string;
  channel: Channel;
  recipient: string;
  status: ReminderLogStatus;
  provider: string;
  provider_message_id: string | null;
  error: string | null;
  /** When the provider said the message reached the phone (`delivered`), or could not (`undelivered`). */
  delivered_at: string | null;
  /** The provider's error code for a message it could not deliver. */
  provider_error_code: string | null;
  /** A message held back by the contact policy (status `skipped`): why. */
  skip_reason: LogSkipReason | null;
  created_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    reminders: RemindersTable;
    reminder_logs: ReminderLogsTable;
  }
}
