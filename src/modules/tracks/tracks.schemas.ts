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
  {
    title: 'TrackCreate',
    examples: [
      {
        customerId: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B',
        title: 'Samsung fridge, 6 monthly instalments',
        amount: 45000000,
        currency: 'NGN',
        installments: 6,
        dueDate: '2027-05-02',
        metadata: { invoice: 'INV-2026-0412' },
      },
    ],
    additionalProperties: false,
  },
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
  {
    title: 'TrackUpdate',
    examples: [{ title: 'Samsung fridge, 7 monthly instalments', amount: 47500000, dueDate: '2027-06-02' }],
    additionalProperties: false,
  },
);
export type TrackUpdate = Static<typeof TrackUpdate>;

export const TrackStatus = Type.Enum(['active', 'completed', 'archived']);

export const Track = Type.Object(
  {
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
  },
  {
    title: 'Track',
    examples: [
      {
        id: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C',
        customerId: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B',
        title: 'Samsung fridge, 6 monthly instalments',
        amount: 45000000,
        balance: 30000000,
        amountPaid: 15000000,
        currency: 'NGN',
        installments: 6,
        status: 'active',
        dueDate: '2027-05-02',
        metadata: { invoice: 'INV-2026-0412' },
        createdAt: '2026-11-02T09:15:00.000Z',
        updatedAt: '2026-11-20T14:03:00.000Z',
        archivedAt: null,
      },
    ],
  },
);
export type Track = Static<typeof Track>;

export const TrackListQuery = Type.Object(
  {
    ...PaginationQuery,
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    status: Type.Optional(TrackStatus),
    overdue: Type.Optional(
      Type.Boolean({
        description:
          'true: only plans with money overdue now, as GET /reports/overdue counts them (an obligation of the plan whose due date has ended unpaid, or the plan active with a balance left and its dueDate before today in the workspace zone); false: only the others.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TrackListQuery = Static<typeof TrackListQuery>;
