import type { Mode } from '../../lib/tenant.js';

export type PaymentStatus = 'recorded' | 'reversed';

/** Where a payment came from: recorded through the API, or reported by a payment provider. */
export type PaymentSource = 'api' | 'provider';

/** The table also has `rolled_status` ('' or the status the reports' rollup last counted), which only the rollup uses. */
export interface PaymentsTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  /** Null for a payment collected for a schedule without a plan. */
  track_id: string | null;
  customer_id: string;
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
}

/** A part of a payment that paid an obligation, as the payment keeps it; marked (never removed) when undone. */
export interface PaymentAllocation {
  obligationId: string;
  amount: number;
  reversedAt: string | null;
}

declare module '../../db/schema.js' {
  interface Database {
    payments: PaymentsTable;
  }
}
