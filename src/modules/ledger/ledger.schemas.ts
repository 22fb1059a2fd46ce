import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { Instant, Nullable } from '../shared.schemas.js';

export const LEDGER_ENTRY_TYPES = [
  'plan.charged',
  'plan.adjusted',
  'payment.recorded',
  'payment.reversed',
  'obligation.created',
  'obligation.paid',
  'collection.succeeded',
  'collection.failed',
  'mandate.activated',
  'mandate.revoked',
] as const;

export const LedgerEntry = Type.Object({
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
});
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
