import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { Amount, CalendarDate, Currency, Instant, Metadata, Nullable, Text200 } from '../shared.schemas.js';

const Title = Text200;
const Installments = Type.Integer({ minimum: 1, maximum: 1000, description: 'Number of instalments' });

export const TrackCreate = Type.Object(
  {
    customerId: Type.String({ minLength: 1, maxLength: 64 }),
    title: Title,
    amount: Amount,
    currency: Type.Optional(Currency),
    installments: Type.Optional(Installments),
    dueDate: Type.Optional(CalendarDate),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type TrackCreate = Static<typeof TrackCreate>;

export const TrackUpdate = Type.Object(
  {
    title: Type.Optional(Title),
    amount: Type.Optional({
      ...Amount,
      description: 'New total; never below what is already paid. The change is a plan.adjusted ledger entry.',
    }),
    dueDate: Type.Optional(Nullable(CalendarDate)),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type TrackUpdate = Static<typeof TrackUpdate>;

export const TrackStatus = Type.Enum(['active', 'completed', 'archived']);

export const Track = Type.Object({
  id: Type.String(),
  customerId: Type.String(),
  title: Type.String(),
  amount: Type.Integer(),
  balance: Type.Integer({ description: 'amount - amountPaid' }),
  amountPaid: Type.Integer(),
  currency: Type.String(),
  installments: Nullable(Type.Integer()),
  status: TrackStatus,
  dueDate: Nullable(CalendarDate),
  metadata: Metadata,
  createdAt: Instant,
  updatedAt: Instant,
  archivedAt: Nullable(Instant),
});
export type Track = Static<typeof Track>;

export const TrackListQuery = Type.Object(
  {
    ...PaginationQuery,
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    status: Type.Optional(TrackStatus),
  },
  { additionalProperties: false },
);
export type TrackListQuery = Static<typeof TrackListQuery>;
