import type { Mode } from '../../lib/tenant.js';

/** `split`: an unapplied payment applied to a plan in part, replaced by its two parts (`split_into`). */
export type PaymentStatus = 'recorded' | 'reversed' | 'split';

/**
 * Why money a provider reported was not applied to a plan: more than the plan's balance (the excess), the plan
 * completed or archived, another currency, or a reference this workspace does not know.
 */
export const UNAPPLIED_REASONS = [
  'overpayment',
  'plan_closed',
  'currency_mismatch',
  'unknown_reference',
] as const;
export type UnappliedReason = (typeof UNAPPLIED_REASONS)[number];

/** Where a payment came from: recorded through the API, or reported by a payment provider. */
export type PaymentSource = 'api' | 'provider';

/** The table also has `rolled_status` ('' or the status the reports' rollup last counted), which only the rollup uses. */
export interface PaymentsTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  /** Null for a payment collected for a schedule without a plan, and for an unapplied one. */
  track_id: string | null;
  /** Null only for an unapplied payment whose reference matched nothing (`unknown_reference`). */
  customer_id: string | null;
  amount: number;
  currency: string;
  method: string;
  status: PaymentStatus;
  paid_at: string;
  /** As sent. */
  reference: string | null;
  /** The reference in the form references are compared in (`referenceKey`); unique per workspace and mode. */
  reference_key: string | null;
  source: PaymentSource;
  metadata: string;
  created_at: string;
  reversed_at: string | null;
  reversal_reason: string | null;
  /** JSON array of `PaymentAllocation`: the obligations it paid, oldest due date first. */
  allocations: string;
  /** Set while the payment is the customer's credit, waiting to be applied or refunded. */
  unapplied_reason: UnappliedReason | null;
  /** The payment this one was split from: the one whose excess it is, or the unapplied one it is a part of. */
  split_from: string | null;
  /** A split payment's parts, as a JSON array of ids; null otherwise. */
  split_into: string | null;
  /** The provider that took the money (`source: provider`), and its reference of the money: what a refund names. */
  provider: string | null;
  provider_reference: string | null;
  refund_status: RefundStatus | null;
  refund_provider_reference: string | null;
  refund_failure_reason: string | null;
  /** Fresh money's receipt: its number (no gaps per workspace and mode) and verification code; null for a part split from a credit. */
  receipt_number: number | null;
  receipt_code: string | null;
  /** The plan's balance right after the payment was recorded; null without a plan. */
  balance_after: number | null;
}

/** The last receipt number given in a workspace's mode: taken in the payment's transaction, so none is skipped. */
export interface ReceiptCountersTable {
  workspace_id: string;
  mode: Mode;
  last_number: number;
}

export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** A part of a payment that paid an obligation, as the payment keeps it; marked (never removed) when undone. */
export interface PaymentAllocation {
  obligationId: string;
  amount: number;
  reversedAt: string | null;
}

declare module '../../db/schema.js' {
  interface Database {
    payments: PaymentsTable;
    receipt_counters: ReceiptCountersTable;
  }
}
