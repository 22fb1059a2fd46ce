import type { Mode } from '../../lib/tenant.js';

export const TARGET_TYPES = [
  'payment_plan',
  'contribution_member',
  'member_savings_member',
  'generic_collection',
] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

export const FREQUENCIES = [
  'one_time',
  'daily',
  'weekly',
  'monthly',
  'flexible',
  'custom',
  'installment_sequence',
] as const;
export type Frequency = (typeof FREQUENCIES)[number];
/** Frequencies that repeat every `interval` units; without an end date they never run out. */
export const REPEATING_FREQUENCIES: readonly Frequency[] = ['daily', 'weekly', 'monthly', 'custom'];

export const COLLECTION_METHODS = [
  'manual',
  'reminder_only',
  'gatewayA_checkout',
  'gatewayB_virtual_account',
  'auto_debit',
  'mixed',
] as const;
export type CollectionMethod = (typeof COLLECTION_METHODS)[number];
/** Methods whose obligations are collected by attempts through the payment provider. */
export const AUTOMATIC_METHODS: readonly CollectionMethod[] = ['auto_debit', 'mixed'];
/** Methods whose obligations get automatic reminders before and after they fall due. */
export const REMINDED_METHODS: readonly CollectionMethod[] = ['reminder_only', 'mixed'];
/** Methods whose obligations the worker starts collecting when they fall due: attempts, or a checkout page. */
export const COLLECTED_WHEN_DUE: readonly CollectionMethod[] = [...AUTOMATIC_METHODS, 'gatewayA_checkout'];

export const SCHEDULE_STATUSES = ['draft', 'active', 'paused', 'cancelled', 'completed'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

export interface SchedulesTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  target_type: TargetType;
  target_id: string | null;
  /** The plan whose payments pay the obligations: the target when it names one. */
  track_id: string | null;
  frequency: Frequency;
  /** Units between obligations (daily, weekly, monthly, custom); null for the others. */
  interval: number | null;
  collection_method: CollectionMethod;
  fixed_amount: number;
  currency: string;
  /** The workspace's zone when the schedule was made: its due dates are calendar dates there. */
  timezone: string;
  start_date: string;
  end_date: string | null;
  status: ScheduleStatus;
  /** Sequence number the next generated obligation takes (its date is the rule's occurrence of that number). */
  next_sequence: number;
  /** When the 12-ahead window of an open-ended schedule next needs another obligation; null when it never will. */
  top_up_at: string | null;
  metadata: string;
  /** gatewayB_virtual_account: JSON `{bank, number, name}` from the provider; null until it gave one. */
  virtual_account: string | null;
  virtual_account_number: string | null;
  /** JSON `EarlySettlementDiscount`; null: a settlement quote gives no discount on this schedule's obligations. */
  early_settlement_discount: string | null;
  /** JSON `LateFeePolicy` (lib/late-fee.ts): the late fees its instalments on a plan are charged; null for none. */
  late_fee: string | null;
  created_at: string;
  updated_at: string;
}

/** fixed: minor units; percent: 0 < value <= 100 with at most 2 decimals, of what is not yet due. */
export interface EarlySettlementDiscount {
  type: 'fixed' | 'percent';
  value: number;
}

/** The provider each provider-rail method names: its virtual accounts or its checkout pages. */
export const RAIL_PROVIDER: Partial<Record<CollectionMethod, string>> = {
  gatewayA_checkout: 'gatewayA',
  gatewayB_virtual_account: 'gatewayB',
};

/**
 * written_off: the business gave up what it still asked (a write-off); waived: a fee the business let go. Both
 * are closed like paid and cancelled.
 */
export const OBLIGATION_STATUSES = [
  'pending',
  'partially_paid',
  'paid',
  'overdue',
  'cancelled',
  'written_off',
  'waived',
] as const;
export type ObligationStatus = (typeof OBLIGATION_STATUSES)[number];
/** Obligations a payment can still pay. The order is the one the partial index is written with. */
export const OPEN_OBLIGATION: readonly ObligationStatus[] = ['pending', 'partially_paid', 'overdue'];

/** An instalment of the schedule's rule, or a late fee charged on the instalment it follows. */
export const OBLIGATION_KINDS = ['instalment', 'fee'] as const;
export type ObligationKind = (typeof OBLIGATION_KINDS)[number];

export interface ObligationsTable {
  id: string;
  kind: ObligationKind;
  workspace_id: string;
  mode: Mode;
  schedule_id: string;
  track_id: string | null;
  sequence: number;
  /** `YYYY-MM-DD` in the schedule's zone. */
  due_date: string;
  amount: number;
  amount_paid: number;
  currency: string;
  status: ObligationStatus;
  /** The start of the day after the due date in the schedule's zone: from then on an unpaid obligation is overdue. */
  overdue_at: string;
  paid_at: string | null;
  /** JSON array of `ObligationAllocation`, oldest first. */
  allocations: string;
  /**
   * Schedules collected by attempts or checkouts: when collection starts (the start of the due date); null once
   * its first attempt or its checkout exists.
   */
  collect_at: string | null;
  /**
   * reminder_only and mixed schedules: the next automatic reminder stage (index into `REMINDER_STAGES`) and the
   * start of its day in the schedule's zone; null once no stage is left.
   */
  remind_stage: number | null;
  remind_at: string | null;
  /** gatewayA_checkout: the provider's checkout for it, and when it was paid. */
  checkout_id: string | null;
  checkout_url: string | null;
  /** The provider that made the checkout (null: the seed's gatewayA), and its own reference of it. */
  checkout_provider: string | null;
  checkout_provider_reference: string | null;
  checkout_completed_at: string | null;
  /**
   * An instalment under a late fee policy: when its next fee period falls due, and which period that is (0-based);
   * null when no fee is to come. A fee: `fee_of` is the instalment it follows and `fee_period` its period (unique
   * together); `fee_next_at` is null.
   */
  fee_next_at: string | null;
  fee_of: string | null;
  fee_period: number | null;
  created_at: string;
  updated_at: string;
}

/** A part of a payment that paid the obligation, as the obligation keeps it; marked (never removed) when undone. */
export interface ObligationAllocation {
  payment_id: string;
  amount: number;
  created_at: string;
  reversed_at: string | null;
}

declare module '../../db/schema.js' {
  interface Database {
    schedules: SchedulesTable;
    obligations: ObligationsTable;
  }
}
