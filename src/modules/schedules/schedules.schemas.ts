import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { NOT_BLANK } from '../../http/validation.js';
import { LATE_FEE_TYPES, MAX_FEE_DAYS } from '../../lib/late-fee.js';
import { Amount, CalendarDate, Currency, Instant, Metadata, Nullable } from '../shared.schemas.js';
import {
  COLLECTION_METHODS,
  FREQUENCIES,
  OBLIGATION_KINDS,
  OBLIGATION_STATUSES,
  SCHEDULE_STATUSES,
  TARGET_TYPES,
} from './schedules.table.js';

export const SCHEDULE_ACTIONS = [
  'activate',
  'pause',
  'resume',
  'cancel',
  'generate_obligations',
  'sync_payment_plan',
] as const;
export type ScheduleAction = (typeof SCHEDULE_ACTIONS)[number];

const TargetType = Type.Enum(TARGET_TYPES, {
  description:
    'payment_plan, contribution_member and member_savings_member name a plan (trk_) of the workspace; generic_collection takes a plan or null.',
});
const Frequency = Type.Enum(FREQUENCIES, {
  description:
    "one_time: one obligation on start_date. daily, weekly, monthly: every `interval` units (monthly keeps the day of start_date, clamped to the month end). custom: every `interval` days. flexible: one obligation of fixed_amount due on end_date (else start_date), paid in any parts. installment_sequence: the plan balance (less what the plan's other open obligations ask) in monthly obligations of fixed_amount, the last taking the remainder; in the plan's `installments` when no other obligation covers any of it. For a plan, no obligation asks more than the balance leaves uncovered.",
});
const CollectionMethod = Type.Enum(COLLECTION_METHODS, {
  description: 'How the obligations are collected; default manual.',
});
const Interval = Type.Integer({
  minimum: 1,
  maximum: 1000,
  description:
    'Units between obligations: days (daily, custom), weeks (weekly), months (monthly). Default 1; required for custom; only for these four frequencies.',
});

const EarlySettlementDiscount = Nullable(
  Type.Object(
    {
      type: Type.Enum(['fixed', 'percent'], {
        description:
          'fixed: `value` minor units; percent: `value` percent (0 < value <= 100, at most 2 decimals).',
      }),
      value: Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000_000_000 }),
    },
    {
      additionalProperties: false,
      description:
        "The discount a settlement quote (GET /tracks/{id}/settlement-quote) gives on what this schedule's open instalments due after the quote's date still ask: a fixed amount (at most that) or a percentage of it (in basis points, rounded half up). null (the default): none.",
    },
  ),
);

const MAX_MONEY = 1_000_000_000_000;
const LATE_FEE_DESCRIPTION =
  "Late fees on the schedule's instalments when its target is a plan (none for a schedule without one), charged while the schedule is active: a fee is an obligation of its own (kind fee, fee_of the instalment) on the plan, raising its amount and balance (ledger fee.charged, event fee.charged). Period k (from 0) of an instalment falls due grace_days days after it is overdue (the start of the day after its due date, in the schedule's zone) plus k × every_days days; every_days null charges once. A fee is charged for a period only while the instalment is still open then; a period falling due while a dispute is open on the instalment or its plan, or while the schedule is paused, is skipped (not charged later). Promises to pay do not stop fees. Periods that fell due before the policy was set are not charged. Payments pay open obligations oldest due date first, so a fee is paid after the instalment it follows.";

/** A late fee policy as a request gives it (create and PATCH); what is left out takes its default. */
const LateFeeInput = Type.Object(
  {
    type: Type.Enum(LATE_FEE_TYPES, {
      description:
        'fixed: value is minor units. percent: value is a percentage of what the instalment still asks when the fee is charged.',
    }),
    value: Type.Number({
      exclusiveMinimum: 0,
      maximum: MAX_MONEY,
      description:
        'fixed: a whole number of minor units from 1. percent: above 0 and at most 100, at most 2 decimals (2.5 is 2.5%); the fee is rounded half up to the minor unit, and a fee of 0 is not charged.',
    }),
    every_days: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 1,
          maximum: MAX_FEE_DAYS,
          description: 'A fee every this many days while the instalment stays unpaid; null (default): once.',
        }),
      ),
    ),
    grace_days: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_FEE_DAYS,
        description: 'Days after the instalment is overdue before its first fee; default 0.',
      }),
    ),
    cap_per_obligation: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 1,
          maximum: MAX_MONEY,
          description:
            'Most the fees charged on one instalment may add up to (waived ones do not count); the last is cut to fit, then no more. Null (default): no cap.',
        }),
      ),
    ),
    cap_per_plan: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 1,
          maximum: MAX_MONEY,
          description:
            'Most the fees charged on the whole plan may add up to (waived ones do not count); the last is cut to fit, then no more. Null (default): no cap.',
        }),
      ),
    ),
  },
  { additionalProperties: false, description: LATE_FEE_DESCRIPTION },
);
export type LateFeeInput = Static<typeof LateFeeInput>;

const lateFeeExample = {
  type: 'fixed',
  value: 250000,
  every_days: 30,
  grace_days: 5,
  cap_per_obligation: 1000000,
  cap_per_plan: null,
};

export const LateFee = Type.Object(
  {
    type: Type.Enum(LATE_FEE_TYPES),
    value: Type.Number(),
    every_days: Nullable(Type.Integer()),
    grace_days: Type.Integer(),
    cap_per_obligation: Nullable(Type.Integer()),
    cap_per_plan: Nullable(Type.Integer()),
  },
  { title: 'LateFee', description: LATE_FEE_DESCRIPTION, examples: [lateFeeExample] },
);

const scheduleCreateExample = {
  target_type: 'payment_plan',
  target_id: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C',
  frequency: 'monthly',
  collection_method: 'manual',
  fixed_amount: 7500000,
  start_date: '2027-01-31T09:00:00Z',
  end_date: null,
  interval: 1,
};

export const ScheduleCreate = Type.Object(
  {
    target_type: TargetType,
    target_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
    frequency: Frequency,
    collection_method: Type.Optional(CollectionMethod),
    fixed_amount: {
      ...Amount,
      description:
        "Amount of each obligation, in minor units. For a plan, what its open obligations ask (across all its schedules) never exceeds its balance: each obligation takes at most what the balance leaves uncovered, and generation stops when nothing is (no obligation of 0), so a fixed_amount above the balance makes one obligation of the balance. When the plan's open obligations already cover its balance, creating (or activating) a schedule is refused with 409 invalid_state naming the schedules that cover it; send replaces_schedule_id to replace one.",
    },
    start_date: {
      ...Instant,
      description:
        'Its calendar date in the workspace time zone is the first due date. No date after 9999-12-31 is kept: a start whose date, or whose first obligations (12 for an open-ended schedule, every instalment of an installment_sequence), would fall after it is a validation_error; an open-ended schedule accepted stops generating at 9999-12-31.',
    },
    end_date: Type.Optional(
      Nullable({
        ...Instant,
        description:
          'No obligation falls due after its calendar date, which must be 9999-12-31 or earlier in the workspace time zone.',
      }),
    ),
    interval: Type.Optional(Interval),
    currency: Type.Optional({
      ...Currency,
      description:
        "ISO 4217 code; the plan's currency when the target is a plan, else the workspace default.",
    }),
    status: Type.Optional(
      Type.Enum(['active', 'draft'], {
        description: 'draft keeps the schedule out of force (no obligations) until activate; default active.',
      }),
    ),
    metadata: Type.Optional(Metadata),
    early_settlement_discount: Type.Optional(EarlySettlementDiscount),
    late_fee: Type.Optional(
      Nullable({
        ...LateFeeInput,
        description: `${LATE_FEE_DESCRIPTION} Given (or null for none), it wins; left out, the schedule takes the workspace's lateFeeDefault (GET /account) as it is at creation, copied: changing the default later does not change existing schedules. PATCH the schedule with late_fee to change it.`,
      }),
    ),
    replaces_schedule_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'A schedule of the same plan (draft, active or paused) that this one replaces: it is cancelled with its open obligations (event schedule.cancelled) in the same request, before this one generates, so this one asks what the balance then leaves uncovered. Unknown: 404 naming the field; of another plan, or with status draft: 422; cancelled or completed: 409 invalid_state.',
      }),
    ),
  },
  { title: 'ScheduleCreate', examples: [scheduleCreateExample], additionalProperties: false },
);
export type ScheduleCreate = Static<typeof ScheduleCreate>;

const scheduleExample = {
  id: 'sch_01JD7ZA1B2C3D4E5F6G7H8J9K0',
  target_type: 'payment_plan',
  target_id: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C',
  frequency: 'monthly',
  interval: 1,
  collection_method: 'manual',
  fixed_amount: 7500000,
  currency: 'NGN',
  timezone: 'Africa/Lagos',
  start_date: '2027-01-31T09:00:00.000Z',
  end_date: null,
  status: 'active',
  next_due_date: '2027-01-31',
  metadata: {},
  virtual_account: null,
  early_settlement_discount: { type: 'percent', value: 2.5 },
  late_fee: lateFeeExample,
  created_at: '2026-11-20T14:03:00.000Z',
  updated_at: '2026-11-20T14:03:00.000Z',
};

export const Schedule = Type.Object(
  {
    id: Type.String(),
    target_type: TargetType,
    target_id: Nullable(Type.String()),
    frequency: Frequency,
    interval: Nullable(Type.Integer()),
    collection_method: CollectionMethod,
    fixed_amount: Type.Integer(),
    currency: Type.String(),
    timezone: Type.String({
      description: 'The zone its due dates are calendar dates in (the workspace one).',
    }),
    start_date: Instant,
    end_date: Nullable(Instant),
    status: Type.Enum(SCHEDULE_STATUSES, {
      description:
        'draft (created so), active, paused, cancelled, completed (every obligation paid or cancelled and none left to generate).',
    }),
    next_due_date: Nullable({
      ...CalendarDate,
      description: 'Due date of the oldest obligation still open; null when none is.',
    }),
    metadata: Metadata,
    virtual_account: Nullable(
      Type.Object(
        { bank: Type.String(), number: Type.String(), name: Type.String() },
        {
          title: 'VirtualAccount',
          description:
            'gatewayB_virtual_account: the account the payer transfers to; each transfer the provider reports is a payment on the plan.',
        },
      ),
    ),
    early_settlement_discount: EarlySettlementDiscount,
    late_fee: Nullable(LateFee),
    created_at: Instant,
    updated_at: Instant,
  },
  { title: 'Schedule', examples: [scheduleExample] },
);
export type Schedule = Static<typeof Schedule>;

const ObligationAllocation = Type.Object(
  {
    payment_id: Type.String(),
    amount: Type.Integer(),
    created_at: Instant,
    reversed_at: Nullable({
      ...Instant,
      description: 'Set when the payment was reversed: the part no longer counts.',
    }),
  },
  { title: 'ObligationAllocation' },
);

const obligationExample = {
  id: 'obl_01JD7ZA1B2C3D4E5F6G7H8J9K1',
  kind: 'instalment',
  fee_of: null,
  schedule_id: 'sch_01JD7ZA1B2C3D4E5F6G7H8J9K0',
  track_id: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C',
  due_date: '2027-01-31',
  amount: 7500000,
  amount_paid: 5000000,
  currency: 'NGN',
  status: 'partially_paid',
  paid_at: null,
  checkout_url: null,
  allocations: [
    {
      payment_id: 'pay_01JD7Z8R6T1V4W7X9Y2Z5A8B0D',
      amount: 5000000,
      created_at: '2027-01-20T10:00:00.000Z',
      reversed_at: null,
    },
  ],
  created_at: '2026-11-20T14:03:00.000Z',
  updated_at: '2027-01-20T10:00:00.000Z',
};

export const Obligation = Type.Object(
  {
    id: Type.String(),
    kind: Type.Enum(OBLIGATION_KINDS, {
      description:
        "instalment (of the schedule's rule) or fee (a late fee charged on the instalment it follows).",
    }),
    fee_of: Nullable(
      Type.String({ description: 'A fee: the instalment it was charged on; null for an instalment.' }),
    ),
    schedule_id: Type.String(),
    track_id: Nullable(Type.String()),
    due_date: CalendarDate,
    amount: Type.Integer(),
    amount_paid: Type.Integer(),
    currency: Type.String(),
    status: Type.Enum(OBLIGATION_STATUSES, {
      description:
        "pending, partially_paid, paid, overdue (not fully paid once its due date has ended in the schedule's zone, by the workspace's clock: shown so from that instant, even before the worker records it and sends obligation.overdue), cancelled, written_off (the business wrote off what it still asked), waived (a fee the business let go).",
    }),
    paid_at: Nullable(Instant),
    checkout_url: Nullable(
      Type.String({
        description: 'gatewayA_checkout: the page where the payer pays it, from the day it falls due.',
      }),
    ),
    allocations: Type.Array(ObligationAllocation, {
      description: 'The payments that paid it, oldest first; reversed ones stay, marked.',
    }),
    created_at: Instant,
    updated_at: Instant,
  },
  { title: 'Obligation', examples: [obligationExample] },
);
export type Obligation = Static<typeof Obligation>;

export const ScheduleActionRequest = Type.Object(
  {
    action: Type.Optional(
      Type.Enum(SCHEDULE_ACTIONS, {
        description:
          "Required unless the request changes a policy field. activate: draft→active (409 invalid_state when the plan's open obligations already cover its balance). pause: active→paused. resume: paused→active (tops obligations up). cancel: any but cancelled or completed → cancelled, its open obligations cancelled. generate_obligations (active or paused): extends to the horizon, each obligation taking at most what the plan's balance leaves uncovered. sync_payment_plan (active, paused or completed; plan target): re-spreads the plan balance over the open obligations, adding one when none is open and a balance is left (a completed schedule is then active again).",
      }),
    ),
    early_settlement_discount: Type.Optional(EarlySettlementDiscount),
    late_fee: Type.Optional(
      Nullable({
        ...LateFeeInput,
        description: `The schedule's new late fee policy (null: none from now on), replacing the old one whole; with or without an action (it is set first). Not on a cancelled schedule (409 invalid_state). Its open instalments take it at once: their next fee is the first period falling due from now under the new policy, never one already charged. ${LATE_FEE_DESCRIPTION}`,
      }),
    ),
    dry_run: Type.Optional(
      Type.Boolean({
        description:
          'With generate_obligations or sync_payment_plan: answer what would change, write nothing.',
      }),
    ),
  },
  {
    title: 'ScheduleAction',
    examples: [{ action: 'sync_payment_plan', dry_run: true }],
    additionalProperties: false,
  },
);
export type ScheduleActionRequest = Static<typeof ScheduleActionRequest>;

const ObligationChange = Type.Object(
  {
    id: Nullable({ ...Type.String(), description: 'null for an obligation a dry run would create' }),
    due_date: CalendarDate,
    amount: Type.Integer(),
    previous_amount: Nullable(Type.Integer()),
    status: Type.Enum(OBLIGATION_STATUSES),
  },
  { title: 'ObligationChange' },
);

export const ScheduleChanges = Type.Object(
  {
    dry_run: Type.Boolean(),
    created: Type.Array(ObligationChange),
    updated: Type.Array(ObligationChange),
    cancelled: Type.Array(ObligationChange),
    owed_after: Type.Integer({
      description: 'What the open obligations of the schedule owe after the action (or would, in a dry run).',
    }),
  },
  { title: 'ScheduleChanges' },
);
export type ScheduleChanges = Static<typeof ScheduleChanges>;

export const ScheduleActionResult = Type.Object(
  {
    ...Schedule.properties,
    changes: Type.Optional(ScheduleChanges),
  },
  {
    title: 'ScheduleActionResult',
    description:
      'The schedule after the action; generate_obligations and sync_payment_plan add `changes` (with dry_run, what they would be; the schedule is then unchanged).',
    examples: [
      {
        ...scheduleExample,
        changes: {
          dry_run: true,
          created: [],
          updated: [
            {
              id: obligationExample.id,
              due_date: '2027-01-31',
              amount: 6000000,
              previous_amount: 7500000,
              status: 'partially_paid',
            },
          ],
          cancelled: [],
          owed_after: 1000000,
        },
      },
    ],
  },
);
export type ScheduleActionResult = Static<typeof ScheduleActionResult>;

export const ScheduleListQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(Type.Enum(SCHEDULE_STATUSES)),
    target_type: Type.Optional(TargetType),
    target_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type ScheduleListQuery = Static<typeof ScheduleListQuery>;

export const ObligationListQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(
      Type.Enum(OBLIGATION_STATUSES, { description: 'Only obligations with this status now (as shown).' }),
    ),
  },
  { additionalProperties: false },
);
export type ObligationListQuery = Static<typeof ObligationListQuery>;

/** Statuses `GET /obligations` filters by: the obligation statuses. */
export const OBLIGATION_FILTER_STATUSES = OBLIGATION_STATUSES;

const FilterId = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 64, description }));

export const ObligationsQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(
      Type.Enum(OBLIGATION_FILTER_STATUSES, {
        description:
          'Only obligations with this status now, as the items show it: overdue includes those whose due date has ended but which the worker has not yet recorded as overdue (and pending, partially_paid leave them out).',
      }),
    ),
    due_from: Type.Optional({
      ...CalendarDate,
      description: 'Due on or after this calendar date (YYYY-MM-DD, inclusive).',
    }),
    due_to: Type.Optional({
      ...CalendarDate,
      description: 'Due on or before this calendar date (YYYY-MM-DD, inclusive); not before due_from.',
    }),
    customer_id: FilterId("Obligations of this customer's plans."),
    track_id: FilterId('Obligations of this plan (across its schedules).'),
    schedule_id: FilterId('Obligations of this schedule.'),
  },
  { additionalProperties: false },
);
export type ObligationsQuery = Static<typeof ObligationsQuery>;

export const ObligationListItem = Type.Object(
  {
    ...Obligation.properties,
    customer_id: Nullable(
      Type.String({ description: "The plan's customer; null for a schedule without a plan." }),
    ),
    amount_due: Type.Integer({
      minimum: 0,
      description:
        'What it still asks: amount - amount_paid while it is open (pending, partially_paid, overdue), 0 once paid or cancelled.',
    }),
  },
  {
    title: 'ObligationListItem',
    description:
      'An obligation as GET /collection-schedules/{id}/obligations shows it, with its customer and what it still asks.',
    examples: [{ ...obligationExample, customer_id: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B', amount_due: 2500000 }],
  },
);
export type ObligationListItem = Static<typeof ObligationListItem>;

export const FeeWaiver = Type.Object(
  {
    reason: Type.String({
      minLength: 1,
      maxLength: 500,
      pattern: NOT_BLANK,
      description: 'Why the fee is let go; kept on the fee.waived ledger entry.',
    }),
  },
  {
    title: 'FeeWaiver',
    additionalProperties: false,
    examples: [{ reason: 'First late payment in three years: goodwill' }],
  },
);
export type FeeWaiver = Static<typeof FeeWaiver>;
