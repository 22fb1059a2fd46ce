import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { Instant, Nullable } from '../shared.schemas.js';

export const LEDGER_ENTRY_TYPES = [
  'plan.charged',
  'plan.adjusted',
  'payment.recorded',
  'payment.reversed',
  'payment.applied',
  'obligation.created',
  'obligation.paid',
  'collection.succeeded',
  'collection.failed',
  'mandate.activated',
  'mandate.replaced',
  'mandate.revoked',
  'plan.written_off',
  'plan.write_off_reversed',
  'plan.settlement_discount',
  'fee.charged',
  'fee.waived',
] as const;

export const LedgerEntry = Type.Object(
  {
    id: Type.String(),
    type: Type.Enum(LEDGER_ENTRY_TYPES),
    trackId: Nullable(Type.String()),
    customerId: Nullable(Type.String()),
    amount: Type.Integer({
      description: 'Signed change to the plan balance: charges positive, payments negative.',
    }),
    balanceAfter: Nullable(Type.Integer()),
    currency: Type.String(),
    occurredAt: Instant,
    refs: Type.Record(Type.String(), Type.String(), { description: 'Related ids, e.g. paymentId.' }),
  },
  {
    title: 'LedgerEntry',
    examples: [
      {
        id: 'led_01JD7ZB2C4D6E8F0G2H4J6K8M1',
        type: 'payment.recorded',
        trackId: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C',
        customerId: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B',
        amount: -7500000,
        balanceAfter: 22500000,
        currency: 'NGN',
        occurredAt: '2026-11-20T14:03:00.000Z',
        refs: { paymentId: 'pay_01JD7Z8R6T1V4W7X9Y2Z5A8B0D' },
      },
    ],
  },
);
export type LedgerEntry = Static<typeof LedgerEntry>;

export const LedgerListQuery = Type.Object(
  {
    ...PaginationQuery,
    type: Type.Optional(Type.Enum(LEDGER_ENTRY_TYPES)),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'occurredAt at or after' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'occurredAt before' })),
  },
  { additionalProperties: false },
);
export type LedgerListQuery = Static<typeof LedgerListQuery>;
