import { type Static, Type } from 'typebox';
import { CalendarDate, Instant, Nullable } from '../shared.schemas.js';
import { AGEING_BUCKETS } from './reports.period.js';

const Range = {
  from: Type.Optional({ ...Instant, description: 'Start of the period (included); without it, all time.' }),
  to: Type.Optional({ ...Instant, description: 'End of the period (excluded); now when absent.' }),
};

export const ReportQuery = Type.Object(Range, { additionalProperties: false });
export type ReportQuery = Static<typeof ReportQuery>;

const GROUP_BY = ['day', 'week', 'month'] as const;

const Count = Type.Integer({ minimum: 0 });
const Money = Type.Integer({
  description:
    'Minor units of the currency, exact: a figure past 2^53 − 1 is refused (422 total_too_large), never rounded.',
});

const AgeingBuckets = Type.Object(Object.fromEntries(AGEING_BUCKETS.map((b) => [b, Money])), {
  description: 'The overdue amount by days past its due date: 1-30, 31-60, 61-90, 91+.',
});

export const Summary = Type.Object(
  {
    from: Nullable(Instant),
    to: Instant,
    timezone: Type.String({ description: 'The workspace time zone the report reads dates in.' }),
    customers: Type.Object({ total: Count, active: Count }),
    plans: Type.Object({ active: Count, completed: Count, archived: Count }),
    currencies: Type.Array(
      Type.Object({
        currency: Type.String(),
        billed: { ...Money, description: 'What plans charged and were adjusted by in the period.' },
        collected: {
          ...Money,
          description: 'What payments brought in during the period, less reversals in it.',
        },
        outstanding: { ...Money, description: 'What plans (not archived) were owed at `to`.' },
        overdue: { ...Money, description: 'What was overdue at `to` (see GET /reports/overdue).' },
        overdueBuckets: {
          ...AgeingBuckets,
          description:
            'The overdue amount at `to` aged as GET /reports/overdue ages it: 1-30, 31-60, 61-90, 91+ days.',
        },
        collectionRate: Nullable(
          Type.Number({
            description:
              'collected ÷ (outstanding at `from` + billed), 4 decimals: the share of what was there to collect that came in. Null when nothing was.',
          }),
        ),
        dso: Nullable(
          Type.Number({
            description:
              'Days sales outstanding: outstanding at `to` ÷ billed × days in the period (from the first ledger entry when `from` is absent), 1 decimal. Null when nothing was billed.',
          }),
        ),
        expectedNext30Days: {
          ...Money,
          description:
            "What open obligations due in the 30 days from the date of `to` (workspace time zone) still owe; for each plan at most its balance, since what a plan's open obligations ask never exceeds it.",
        },
        writtenOff: {
          ...Money,
          description:
            'What the business gave up in the period: write-offs less the write-offs reversed in it, plus the discounts of settlement quotes paid in it (ledger plan.written_off, plan.write_off_reversed, plan.settlement_discount), as a positive figure (negative only when the period reverses more write-offs than it makes).',
        },
        feesCharged: { ...Money, description: 'Late fees charged in the period (ledger fee.charged).' },
        feesWaived: {
          ...Money,
          description: 'Late fees waived in the period (ledger fee.waived), as a positive figure.',
        },
      }),
      { description: 'One entry per currency; figures are never summed across currencies.' },
    ),
  },
  {
    title: 'ReportSummary',
    examples: [
      {
        from: '2027-01-01T00:00:00.000Z',
        to: '2027-02-01T00:00:00.000Z',
        timezone: 'Africa/Lagos',
        customers: { total: 412, active: 389 },
        plans: { active: 356, completed: 48, archived: 7 },
        currencies: [
          {
            currency: 'NGN',
            billed: 1845000000,
            collected: 1210500000,
            outstanding: 2975000000,
            overdue: 312000000,
            overdueBuckets: { '1-30': 150000000, '31-60': 90000000, '61-90': 42000000, '91+': 30000000 },
            collectionRate: 0.2891,
            dso: 49.9,
            expectedNext30Days: 640000000,
            writtenOff: 4500000,
            feesCharged: 1200000,
            feesWaived: 200000,
          },
        ],
      },
    ],
  },
);
export type Summary = Static<typeof Summary>;

export const CollectionsQuery = Type.Object(
  {
    ...Range,
    groupBy: Type.Optional(
      Type.Enum(GROUP_BY, {
        description: 'Periods in the workspace time zone; weeks start on Monday. Default day.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CollectionsQuery = Static<typeof CollectionsQuery>;

const Tally = { total: Money, count: Count };

export const Collections = Type.Object(
  {
    from: Nullable(Instant),
    to: Instant,
    timezone: Type.String(),
    groupBy: Type.Enum(GROUP_BY),
    currencies: Type.Array(
      Type.Object({
        currency: Type.String(),
        ...Tally,
        byMethod: Type.Array(Type.Object({ method: Type.String(), ...Tally })),
        periods: Type.Array(
          Type.Object({
            period: Type.String({ description: 'The first local day of the period (YYYY-MM-DD).' }),
            ...Tally,
          }),
        ),
      }),
      {
        description:
          'Payments recorded (not reversed) with paidAt in the period, per currency; only periods with payments appear.',
      },
    ),
  },
  {
    title: 'ReportCollections',
    examples: [
      {
        from: '2027-01-01T00:00:00.000Z',
        to: '2027-01-03T00:00:00.000Z',
        timezone: 'Africa/Lagos',
        groupBy: 'day',
        currencies: [
          {
            currency: 'NGN',
            total: 4250000,
            count: 3,
            byMethod: [
              { method: 'bank_transfer', total: 3000000, count: 2 },
              { method: 'cash', total: 1250000, count: 1 },
            ],
            periods: [
              { period: '2027-01-01', total: 1500000, count: 1 },
              { period: '2027-01-02', total: 2750000, count: 2 },
            ],
          },
        ],
      },
    ],
  },
);
export type Collections = Static<typeof Collections>;

export const ExpectedQuery = Type.Object(
  {
    due_from: Type.Optional({
      ...CalendarDate,
      description:
        'Due on or after this calendar date (YYYY-MM-DD, inclusive); today in the workspace time zone when absent.',
    }),
    due_to: Type.Optional({
      ...CalendarDate,
      description:
        "Due on or before this calendar date (YYYY-MM-DD, inclusive); 29 days after due_from when absent (30 days, as the summary report's expectedNext30Days). At most 366 days after due_from.",
    }),
    groupBy: Type.Optional(
      Type.Enum(GROUP_BY, { description: 'Periods of due dates; weeks start on Monday. Default day.' }),
    ),
  },
  { additionalProperties: false },
);
export type ExpectedQuery = Static<typeof ExpectedQuery>;

export const Expected = Type.Object(
  {
    dueFrom: CalendarDate,
    dueTo: CalendarDate,
    timezone: Type.String(),
    groupBy: Type.Enum(GROUP_BY),
    currencies: Type.Array(
      Type.Object({
        currency: Type.String(),
        total: Money,
        periods: Type.Array(
          Type.Object({
            period: Type.String({ description: 'The first day of the period (YYYY-MM-DD).' }),
            amount: Money,
          }),
        ),
      }),
      {
        description:
          'Per currency, what open obligations due in [dueFrom, dueTo] still ask (amount less what is paid); only periods with something due appear.',
      },
    ),
  },
  {
    title: 'ReportExpected',
    examples: [
      {
        dueFrom: '2027-01-04',
        dueTo: '2027-01-17',
        timezone: 'Africa/Lagos',
        groupBy: 'week',
        currencies: [
          {
            currency: 'NGN',
            total: 4500000,
            periods: [
              { period: '2027-01-04', amount: 1500000 },
              { period: '2027-01-11', amount: 3000000 },
            ],
          },
        ],
      },
    ],
  },
);
export type Expected = Static<typeof Expected>;

export const OverdueQuery = Type.Object(
  {
    to: Range.to,
    currency: Type.Optional(
      Type.String({ pattern: '^[A-Z]{3}$', description: 'Only this currency’s accounts.' }),
    ),
    order: Type.Optional(
      Type.Enum(['amount', 'days_overdue'], {
        description:
          'amount (default): the largest overdue amount first, then the oldest due date. days_overdue: the most days overdue first, then the largest amount.',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  },
  { additionalProperties: false },
);
export type OverdueQuery = Static<typeof OverdueQuery>;

export const OverdueAccount = Type.Object({
  customerId: Nullable(Type.String()),
  customerName: Nullable(Type.String()),
  phone: Nullable(
    Type.String({ description: "The customer's phone (E.164); null for a schedule without a plan." }),
  ),
  email: Nullable(Type.String({ description: "The customer's e-mail; null when it has none." })),
  trackId: Nullable(Type.String()),
  planTitle: Nullable(Type.String()),
  scheduleId: Nullable(
    Type.String({
      description:
        'The schedule whose obligation is overdue: for a plan with several, the schedule of its oldest overdue obligation (earliest due date, then the lowest schedule id). null when the plan owes only because its own dueDate has passed. For a schedule without a plan, that schedule (trackId null).',
    }),
  ),
  currency: Type.String(),
  overdueAmount: Money,
  oldestDueDate: Type.String({ description: 'YYYY-MM-DD' }),
  daysOverdue: Type.Integer({ minimum: 1 }),
  promised: {
    ...Money,
    description:
      'What of overdueAmount an open promise to pay covers: for a promise on the plan, its amount up to the overdue amount no dispute covers; for one on an obligation, its amount up to what that obligation has overdue (0 when disputed).',
  },
  disputed: {
    ...Money,
    description:
      'What of overdueAmount an open dispute covers: a dispute on the plan or one of its payments covers all of it, one on an obligation what that obligation has overdue.',
  },
});

export const Overdue = Type.Object(
  {
    asOf: Instant,
    timezone: Type.String(),
    currencies: Type.Array(
      Type.Object({
        currency: Type.String(),
        total: Money,
        buckets: AgeingBuckets,
        promised: {
          ...Money,
          description:
            "The accounts' promised amounts added up: what of total an open promise to pay covers (the rest of total is neither promised nor disputed when promised and disputed are taken away; the buckets age all of total).",
        },
        disputed: {
          ...Money,
          description: "The accounts' disputed amounts added up: what of total an open dispute covers.",
        },
      }),
    ),
    accounts: Type.Object({
      items: Type.Array(OverdueAccount, {
        description: 'Worst first within each currency: largest overdue amount, then oldest due date.',
      }),
      has_more: Type.Boolean(),
      next_cursor: Nullable(Type.String()),
    }),
  },
  {
    title: 'ReportOverdue',
    examples: [
      {
        asOf: '2027-02-01T00:00:00.000Z',
        timezone: 'Africa/Lagos',
        currencies: [
          {
            currency: 'NGN',
            total: 2250000,
            buckets: { '1-30': 1500000, '31-60': 750000, '61-90': 0, '91+': 0 },
            promised: 1500000,
            disputed: 0,
          },
        ],
        accounts: {
          items: [
            {
              customerId: 'cus_01JD7ZK9V3B5N7Q9S1U3W5Y7A9',
              customerName: 'Adaeze Okafor',
              phone: '+2348031234567',
              email: null,
              trackId: 'trk_01JD7ZM2C8K4P6R8T0V2X4Z6B8',
              planTitle: 'Samsung fridge, 6 months',
              scheduleId: 'sch_01JD7ZN4E0M6R8T0V2X4Z6B8C0',
              currency: 'NGN',
              overdueAmount: 2250000,
              oldestDueDate: '2026-12-15',
              daysOverdue: 48,
              promised: 1500000,
              disputed: 0,
            },
          ],
          has_more: false,
          next_cursor: null,
        },
      },
    ],
    description:
      'A plan is overdue when an obligation of it is past due and unpaid, or its dueDate has passed with a balance left (then its whole balance is overdue).',
  },
);
export type Overdue = Static<typeof Overdue>;
