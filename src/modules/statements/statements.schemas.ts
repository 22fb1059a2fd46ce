import { type Static, Type } from 'typebox';
import { AGEING_BUCKETS } from '../reports/index.js';
import { CalendarDate, Instant, Nullable } from '../shared.schemas.js';

/** What a statement line is, whatever ledger entry it comes from (`statements.lines.ts` maps one to the other). */
export const STATEMENT_LINE_TYPES = [
  'charge',
  'adjustment',
  'payment',
  'credit_applied',
  'reversal',
  'refund',
  'fee',
  'fee_waived',
  'write_off',
  'write_off_reversed',
  'settlement_discount',
] as const;
export type StatementLineType = (typeof STATEMENT_LINE_TYPES)[number];

/** The longest period one statement covers: `to` at most this many days after `from`. */
export const MOST_DAYS = 366;

export const StatementQuery = Type.Object(
  {
    from: Type.Optional({
      ...CalendarDate,
      description:
        "First day of the period (YYYY-MM-DD in the workspace time zone, included). Default: the first day of the month two months before `to`'s month, so the period is the last three calendar months up to `to` (to 2026-11-27: from 2026-09-01). Not after `to`, and at most 366 days before it.",
    }),
    to: Type.Optional({
      ...CalendarDate,
      description:
        'Last day of the period (YYYY-MM-DD in the workspace time zone, included). Default: today in the workspace time zone; never after today.',
    }),
    currency: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 3,
        description:
          'Only this currency (ISO 4217, such as NGN): the answer then has exactly that currency, zeros and no lines when the customer has nothing in it.',
      }),
    ),
    format: Type.Optional(
      Type.Enum(['json', 'pdf'], {
        description:
          'json (default) or pdf. Without it, an Accept header that prefers application/pdf to application/json gives the PDF.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type StatementQuery = Static<typeof StatementQuery>;

const Money = Type.Integer({ description: 'Minor units of the currency.' });

const Line = Type.Object(
  {
    date: { ...CalendarDate, description: 'When it happened, in the workspace time zone (YYYY-MM-DD).' },
    type: Type.Enum(STATEMENT_LINE_TYPES, {
      description:
        'charge (a plan charged), adjustment (a plan amount changed), payment, credit_applied (credit put on a plan), reversal (a payment corrected), refund (a payment given back through its provider). More types come as the ledger gains money entries (fees, write-offs).',
    }),
    description: Type.String({
      description: 'In words, for people: "Payment — bank transfer, ref GTB-0091".',
    }),
    amount: Type.Integer({
      description:
        'Signed, minor units. Among the lines: the change to what the customer owes (charges positive, payments negative). Among the credit lines: the change to the credit held (money received positive, credit applied or refunded negative).',
    }),
    balance: Type.Integer({ description: 'The running balance after this line.' }),
    ref: Type.String({
      description:
        'The record the line comes from: a payment id (pay_) for money moved, a plan id (trk_) for a charge or an adjustment.',
    }),
    trackId: Nullable(Type.String({ description: 'The plan the line moved; null among the credit lines.' })),
  },
  { title: 'StatementLine' },
);

const Credit = Type.Object(
  {
    openingBalance: { ...Money, description: 'Credit held at the start of `from`.' },
    lines: Type.Array(Line),
    closingBalance: {
      ...Money,
      description:
        "Credit held at the end of `to`: for `to` today, the customer's `credit` in GET /customers/{id} balances.",
    },
  },
  {
    description:
      "The customer's credit: money received on none of its plans (unapplied payments: an overpayment's excess, money for a closed plan or in another currency), what was applied to a plan and what was refunded. Apart from the lines, so closingBalance stays what the plans owe.",
  },
);

const AgeingBuckets = Type.Object(Object.fromEntries(AGEING_BUCKETS.map((b) => [b, Money])), {
  description: 'The overdue amount by days past its due date: 1-30, 31-60, 61-90, 91+.',
});

const CurrencyStatement = Type.Object({
  currency: Type.String(),
  openingBalance: {
    ...Money,
    description: "What the customer's plans owed at the start of `from` (their ledger entries before it).",
  },
  lines: Type.Array(Line, {
    description:
      "Every charge, adjustment, payment, credit applied, reversal and refund on the customer's plans in the period, in the order they happened (then as recorded), each with the balance after it. openingBalance plus the amounts is closingBalance.",
  }),
  closingBalance: {
    ...Money,
    description:
      "What the customer's plans owed at the end of `to`: the sum of their ledger entries up to then, archived plans included. For `to` today, the sum of the plans' balances.",
  },
  credit: Credit,
  overdue: Type.Object(
    { total: Money, buckets: AgeingBuckets },
    {
      description:
        "Overdue now (when the statement is made, not at `to`), as GET /reports/overdue counts it: what obligations past their due date still ask, and a plan's balance beyond that once its dueDate has passed, aged by due date.",
    },
  ),
  nextDue: Nullable(
    Type.Object(
      {
        date: { ...CalendarDate, description: 'The due date (workspace time zone).' },
        amount: { ...Money, description: 'What the obligations due that day still ask.' },
      },
      {
        description:
          "As of now: the earliest due date of the open obligations of the customer's plans not yet overdue, and what they ask that day. Null when none.",
      },
    ),
  ),
});

export const Statement = Type.Object(
  {
    customer: Type.Object({
      id: Type.String(),
      name: Type.String(),
      email: Nullable(Type.String()),
      phone: Type.String(),
    }),
    from: CalendarDate,
    to: CalendarDate,
    timezone: Type.String({ description: 'The workspace time zone the dates are in.' }),
    asOf: { ...Instant, description: 'When the statement was made: the time overdue and nextDue are of.' },
    currencies: Type.Array(CurrencyStatement, {
      description:
        'Per currency the customer has money in (never summed across currencies), by code; a currency whose figures are all zero with no line in the period is left out.',
    }),
  },
  {
    title: 'CustomerStatement',
    examples: [
      {
        customer: {
          id: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B',
          name: 'Ada Obi',
          email: 'ada.obi@example.com',
          phone: '+2348031234567',
        },
        from: '2026-09-01',
        to: '2026-11-27',
        timezone: 'Africa/Lagos',
        asOf: '2026-11-27T09:30:00.000Z',
        currencies: [
          {
            currency: 'NGN',
            openingBalance: 30000000,
            lines: [
              {
                date: '2026-10-02',
                type: 'payment',
                description: 'Payment — bank transfer, ref GTB-0091 (Samsung fridge)',
                amount: -7500000,
                balance: 22500000,
                ref: 'pay_01JD7Z8R6T1V4W7X9Y2Z5A8B0D',
                trackId: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C',
              },
              {
                date: '2026-10-05',
                type: 'reversal',
                description: 'Payment reversed: cheque bounced (ref CHQ-0042) (Samsung fridge)',
                amount: 7500000,
                balance: 30000000,
                ref: 'pay_01JD7Z8R6T1V4W7X9Y2Z5A8B0D',
                trackId: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C',
              },
            ],
            closingBalance: 30000000,
            credit: { openingBalance: 0, lines: [], closingBalance: 0 },
            overdue: {
              total: 7500000,
              buckets: { '1-30': 7500000, '31-60': 0, '61-90': 0, '91+': 0 },
            },
            nextDue: { date: '2026-12-02', amount: 7500000 },
          },
        ],
      },
    ],
  },
);
export type Statement = Static<typeof Statement>;
export type StatementLine = Static<typeof Line>;
export type CurrencyStatement = Static<typeof CurrencyStatement>;
