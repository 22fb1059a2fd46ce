import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { Amount, Instant, Metadata, Nullable } from '../shared.schemas.js';
import { REFUND_STATUSES, UNAPPLIED_REASONS } from './payments.table.js';

export const PAYMENT_METHODS = [
  'cash',
  'bank_transfer',
  'card',
  'mobile_money',
  'pos',
  'cheque',
  'direct_debit',
  'gateway_checkout',
  'virtual_account',
  'other',
] as const;

export const PaymentMethod = Type.Enum(PAYMENT_METHODS);

export const PaymentCreate = Type.Object(
  {
    trackId: Type.String({ minLength: 1, maxLength: 64, description: 'The payment plan (track) paid into' }),
    amount: Amount,
    method: Type.Optional({ ...PaymentMethod, description: 'Defaults to other.' }),
    paidAt: Type.Optional({
      ...Instant,
      description: 'When the money was paid; defaults to now; not in the future.',
    }),
    reference: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 120,
        description:
          'External reference such as a bank reference; unique in the workspace, so an import is never counted twice.',
      }),
    ),
    metadata: Type.Optional(Metadata),
    settlementQuoteId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          "A settlement quote of the plan (GET /tracks/{id}/settlement-quote, sq_): the payment must be exactly its amount (else validation_error naming amount, details.quoteAmount), before its validUntil, while the plan's balance is still the one quoted; it completes the plan, its discount written off (ledger plan.settlement_discount). A quote is used once; expired, used, or a plan changed since: 409 invalid_state.",
      }),
    ),
  },
  {
    title: 'PaymentCreate',
    examples: [
      {
        trackId: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C',
        amount: 7500000,
        method: 'bank_transfer',
        paidAt: '2026-11-20T14:03:00Z',
        reference: 'GTB-TRF-20261120-0091',
      },
    ],
    additionalProperties: false,
  },
);
export type PaymentCreate = Static<typeof PaymentCreate>;

/** A recorded payment, as the examples of the document show it. */
const paymentExample = {
  id: 'pay_01JD7Z8R6T1V4W7X9Y2Z5A8B0D',
  trackId: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C',
  customerId: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B',
  amount: 7500000,
  currency: 'NGN',
  method: 'bank_transfer',
  status: 'recorded',
  paidAt: '2026-11-20T14:03:00.000Z',
  reference: 'GTB-TRF-20261120-0091',
  source: 'api',
  metadata: {},
  createdAt: '2026-11-20T14:03:00.000Z',
  reversedAt: null,
  reversalReason: null,
  allocations: [{ obligationId: 'obl_01JD7ZA1B2C3D4E5F6G7H8J9K1', amount: 7500000, reversedAt: null }],
  unallocatedAmount: 0,
  unapplied: false,
  unappliedReason: null,
  splitFrom: null,
  splitInto: [],
  provider: null,
  providerReference: null,
  refund: null,
  receipt: { number: 'R-000123', code: '7KQ2-M9XD-4T1B', url: 'https://pay.example.com/r/7KQ2M9XD4T1B' },
};

const PaymentAllocation = Type.Object(
  {
    obligationId: Type.String(),
    amount: Type.Integer(),
    reversedAt: Nullable({
      ...Instant,
      description: 'Set when the payment was reversed and the part undone.',
    }),
  },
  { title: 'PaymentAllocation' },
);

const Refund = Type.Object(
  {
    status: Type.Enum(REFUND_STATUSES, {
      description:
        'pending: asked of the provider, not confirmed yet (the payment stays recorded and the balance unchanged); succeeded: the provider refunded it (the payment is reversed and its amount back on the balance); failed: the provider did not refund it (the payment stays recorded; see failureReason).',
    }),
    providerReference: Nullable(Type.String({ description: "The provider's reference of the refund." })),
    failureReason: Nullable(Type.String()),
  },
  {
    title: 'PaymentRefund',
    description: 'A refund through the provider: POST /payments/{id}/reverse with refund: true.',
  },
);

const Receipt = Type.Object(
  {
    number: Type.String({
      description:
        'R-000123: numbered in the order payments are recorded, per workspace and mode, with no gaps. A receipt is never edited: a reversal or refund marks it (its page says so) and takes no new number.',
    }),
    code: Type.String({
      description: 'The short verification code printed on the receipt; it reveals this receipt only.',
    }),
    url: Type.String({
      description:
        'The public page (no key) that shows the receipt and whether it still stands, with its PDF.',
    }),
  },
  {
    title: 'PaymentReceipt',
    description:
      'The receipt of the money this payment recorded. Null only for a part split from a credit, whose money is on the credit’s receipt.',
  },
);

export const Payment = Type.Object(
  {
    id: Type.String(),
    trackId: Nullable(
      Type.String({
        description:
          'The plan paid into. Null only for money a provider reported that no plan took: a collection for a schedule without a plan, or an unapplied payment (see `unapplied`).',
      }),
    ),
    customerId: Nullable(
      Type.String({
        description:
          'The customer who paid. Null only for an unapplied payment whose reference matched nothing here (`unknown_reference`).',
      }),
    ),
    amount: Type.Integer(),
    currency: Type.String(),
    method: PaymentMethod,
    status: Type.Enum(['recorded', 'reversed', 'split'], {
      description:
        'recorded; reversed by POST /payments/{id}/reverse (the plan balance went back up); split: an unapplied payment applied to a plan in part, replaced by its two parts (`splitInto`: the part the plan took and the credit left), which count instead of it.',
    }),
    paidAt: Instant,
    reference: Nullable(Type.String()),
    source: Type.Enum(['api', 'provider'], {
      description: 'api: recorded through the API; provider: collected or reported by a payment provider',
    }),
    metadata: Metadata,
    createdAt: Instant,
    reversedAt: Nullable(Instant),
    reversalReason: Nullable(Type.String()),
    allocations: Type.Array(PaymentAllocation, {
      description:
        "The obligations this payment paid, oldest due date first across the plan's schedules; kept, marked reversed, when the payment is reversed.",
    }),
    unallocatedAmount: Type.Integer({
      description:
        'The part of the amount no open obligation took (0 once reversed or split: nothing is allocated then).',
    }),
    unapplied: Type.Boolean({
      description:
        "true while the payment is money a provider reported that no plan took: the customer's credit, shown in the customer's `balances[].credit`, for the business to apply (POST /payments/{id}/apply) or refund (POST /payments/{id}/reverse). Money a provider reports is never refused and never dropped.",
    }),
    unappliedReason: Nullable(
      Type.Enum(UNAPPLIED_REASONS, {
        description:
          "Why no plan took it: overpayment (the excess over the plan's balance; the part the balance took is the payment in `splitFrom`), plan_closed (the plan was completed or archived), currency_mismatch (another currency than the plan's), unknown_reference (the account, checkout or attempt named matches nothing). Kept after it is applied.",
      }),
    ),
    splitFrom: Nullable(
      Type.String({
        description:
          'The payment this one was split from: for an overpayment, the payment that paid the plan its balance; for a part of an unapplied payment applied in part, that payment.',
      }),
    ),
    splitInto: Type.Array(Type.String(), {
      description: 'A split payment: its two parts, the one on the plan first, then the credit left.',
    }),
    provider: Nullable(
      Type.String({
        description: 'The payment provider that collected it (source provider); null otherwise.',
      }),
    ),
    providerReference: Nullable(
      Type.String({
        description:
          "The provider's reference of the money (a transaction, a payment intent): what a refund names.",
      }),
    ),
    refund: Nullable(Refund),
    receipt: Nullable(Receipt),
  },
  {
    title: 'Payment',
    examples: [paymentExample],
  },
);
export type Payment = Static<typeof Payment>;

export const paymentEventExample = { ...paymentExample, balanceAfter: 22_500_000 };

/** A payment as its events carry it: with the plan's balance right after it. */
export const PaymentEvent = Type.Object(
  {
    ...Payment.properties,
    balanceAfter: Nullable(
      Type.Integer({
        description:
          "The plan's balance right after this payment (or its reversal); null for a payment without a plan.",
      }),
    ),
  },
  {
    title: 'PaymentEvent',
    examples: [paymentEventExample],
  },
);
export type PaymentEvent = Static<typeof PaymentEvent>;

export const PaymentReverse = Type.Object(
  {
    reason: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: 'Why the payment is reversed' }),
    ),
    refund: Type.Optional(
      Type.Boolean({
        description:
          'true: give the money back through the provider that collected it (source provider only; else 422 naming refund). The payment stays recorded, with refund.status pending, until the provider confirms; then it is reversed. false or absent: reverse it in the books only.',
      }),
    ),
  },
  { title: 'PaymentReverse', examples: [{ reason: 'Cheque returned unpaid' }], additionalProperties: false },
);
export type PaymentReverse = Static<typeof PaymentReverse>;

export const PaymentApply = Type.Object(
  {
    trackId: Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        "The plan to apply it to: an active plan of the payment's customer (any customer's, when the payment has none) in the payment's currency.",
    }),
  },
  {
    title: 'PaymentApply',
    examples: [{ trackId: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C' }],
    additionalProperties: false,
  },
);
export type PaymentApply = Static<typeof PaymentApply>;

export const PaymentListQuery = Type.Object(
  {
    ...PaginationQuery,
    trackId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    method: Type.Optional(PaymentMethod),
    status: Type.Optional(
      Type.Enum(['recorded', 'reversed', 'split'], {
        description: 'recorded, reversed, or split (an unapplied payment replaced by its two parts).',
      }),
    ),
    unapplied: Type.Optional(
      Type.Boolean({ description: 'true: only unapplied payments (credit); false: only the others.' }),
    ),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'paidAt at or after' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'paidAt before' })),
  },
  { additionalProperties: false },
);
export type PaymentListQuery = Static<typeof PaymentListQuery>;

/** Payments of one plan: the plan comes from the path. */
export const TrackPaymentListQuery = Type.Object(
  {
    ...PaginationQuery,
    method: Type.Optional(PaymentMethod),
    from: Type.Optional(Type.String({ format: 'date-time' })),
    to: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);
export type TrackPaymentListQuery = Static<typeof TrackPaymentListQuery>;
