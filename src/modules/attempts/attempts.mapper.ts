import type { Attempt } from './attempts.schemas.js';
import type { AttemptsTable } from './attempts.table.js';

export function toApi(row: AttemptsTable): Attempt {
  return {
    id: row.id,
    schedule_id: row.schedule_id,
    obligation_id: row.obligation_id,
    mandate_id: row.mandate_id,
    provider: row.provider,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    scheduled_for: row.scheduled_for,
    attempted_at: row.attempted_at,
    attempt_number: row.attempt_number,
    failure_code: row.failure_code,
    failure_message: row.failure_message,
    next_retry_at: row.next_retry_at,
    no_retry_reason: row.no_retry_reason,
    blocked_reason: row.blocked_reason,
    payment_id: row.payment_id,
    provider_reference: row.provider_reference,
    provider_failure_code: row.provider_failure_code,
    created_at: row.created_at,
  };
}
