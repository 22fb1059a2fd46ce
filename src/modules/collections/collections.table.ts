import type { Mode } from '../../lib/tenant.js';

export const PROMISE_STATUSES = ['open', 'kept', 'broken', 'cancelled'] as const;
export type PromiseStatus = (typeof PROMISE_STATUSES)[number];
export const PROMISE_SOURCES = ['business', 'payer'] as const;
export type PromiseSource = (typeof PROMISE_SOURCES)[number];

/** A promise to pay `amount` on a plan (or one of its obligations) by the end of `date` in the workspace zone. */
export interface PromisesTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  track_id: string;
  obligation_id: string | null;
  customer_id: string;
  amount: number;
  currency: string;
  /** `YYYY-MM-DD` in the workspace's zone. */
  date: string;
  /** The start of the day after `date` in the workspace's zone: broken then unless kept. */
  due_at: string;
  note: string | null;
  source: PromiseSource;
  status: PromiseStatus;
  created_at: string;
  resolved_at: string | null;
  updated_at: string;
}

export const DISPUTE_REASONS = [
  'not_received',
  'wrong_amount',
  'already_paid',
  'goods_returned',
  'other',
] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];
export const DISPUTE_STATUSES = ['open', 'accepted', 'rejected'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/** A dispute on a plan, an obligation or a payment; `track_id` is the plan it concerns in every case it has one. */
export interface DisputesTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  track_id: string | null;
  obligation_id: string | null;
  payment_id: string | null;
  customer_id: string | null;
  reason: DisputeReason;
  note: string | null;
  status: DisputeStatus;
  /** JSON: an accepted dispute's outcome, `{type: adjust | write_off | reverse, amount, ...}`; else null. */
  resolution: string | null;
  resolution_note: string | null;
  created_at: string;
  resolved_at: string | null;
  updated_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    promises: PromisesTable;
    disputes: DisputesTable;
  }
}
