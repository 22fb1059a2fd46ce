import type { Mode } from '../../lib/tenant.js';
import type { FailureCode } from '../../ports/payment-providers.js';

export const ATTEMPT_STATUSES = [
  'scheduled',
  'blocked',
  'processing',
  'succeeded',
  'failed',
  'cancelled',
] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

export const BLOCKED_REASONS = [
  'no_active_mandate',
  'provider_approval_required',
  'promise_open',
  'dispute_open',
] as const;
export type BlockedReason = (typeof BLOCKED_REASONS)[number];

export const NO_RETRY_REASONS = ['not_retryable', 'retries_exhausted'] as const;
export type NoRetryReason = (typeof NO_RETRY_REASONS)[number];

export interface AttemptsTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  schedule_id: string;
  obligation_id: string;
  mandate_id: string | null;
  provider: string | null;
  amount: number;
  currency: string;
  status: AttemptStatus;
  scheduled_for: string;
  attempted_at: string | null;
  /** 1 for the first try of an obligation; retries count on, up to 4. */
  attempt_number: number;
  /** When the first try of this obligation failed: retries fall 1, 3 and 7 days after it. */
  first_failed_at: string | null;
  failure_code: FailureCode | null;
  failure_message: string | null;
  next_retry_at: string | null;
  no_retry_reason: NoRetryReason | null;
  blocked_reason: BlockedReason | null;
  payment_id: string | null;
  provider_reference: string | null;
  /** The provider's own decline or error code, beside the normalised `failure_code`. */
  provider_failure_code: string | null;
  /** A charge in flight with a real provider (asynchronous, or its answer lost): when to ask the provider again. */
  reconcile_at: string | null;
  created_at: string;
  updated_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    attempts: AttemptsTable;
  }
}
