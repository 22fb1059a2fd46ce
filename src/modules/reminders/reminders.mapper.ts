import type { Reminder, ReminderLog } from './reminders.schemas.js';
import type { ReminderLogsTable, RemindersTable } from './reminders.table.js';

export function toApi(row: RemindersTable): Reminder {
  return {
    id: row.id,
    customerId: row.customer_id,
    trackId: row.track_id,
    obligationId: row.obligation_id,
    channel: row.channel,
    to: row.recipient,
    subject: row.subject,
    message: row.message,
    status: row.status,
    skipReason: row.skip_reason as Reminder['skipReason'],
    sendAt: row.send_at,
    sentAt: row.sent_at,
    attempts: row.attempts,
    lastError: row.last_error,
    source: row.source,
    paymentId: row.payment_id,
    stage: row.stage,
    createdAt: row.created_at,
  };
}

export function logToApi(row: ReminderLogsTable): ReminderLog {
  return {
    id: row.id,
    reminderId: row.reminder_id,
    channel: row.channel,
    to: row.recipient,
    status: row.status,
    provider: row.provider,
    providerMessageId: row.provider_message_id,
    error: row.error,
    deliveredAt: row.delivered_at,
    providerErrorCode: row.provider_error_code,
    skipReason: row.skip_reason,
    createdAt: row.created_at,
  };
}
