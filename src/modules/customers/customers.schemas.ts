import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { Instant, Metadata, Nullable, Text200 } from '../shared.schemas.js';

const Name = Text200;
const Email = Type.String({ format: 'email', maxLength: 254 });
const Phone = Type.String({
  minLength: 1,
  maxLength: 32,
  description:
    "As people write it: international (+2348031234567), or without the country code (0803 123 4567, 803-123-4567) read in the workspace's country (PATCH /account). Kept in E.164. Without a workspace country a number needs its country code.",
});
const Notes = Type.String({ maxLength: 2000 });

const TimeZone = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    'IANA time zone (such as Africa/Nairobi) of the customer’s quiet hours; without it, the workspace’s.',
});

export const CustomerCreate = Type.Object(
  {
    name: Name,
    email: Type.Optional(Email),
    timeZone: Type.Optional(TimeZone),
    phone: Phone,
    notes: Type.Optional(Notes),
    metadata: Type.Optional(Metadata),
  },
  {
    title: 'CustomerCreate',
    examples: [
      {
        name: 'Ada Obi',
        email: 'ada.obi@example.com',
        phone: '+2348031234567',
        notes: 'Prefers transfers on Fridays',
        metadata: { branch: 'Ikeja' },
      },
    ],
    additionalProperties: false,
  },
);
export type CustomerCreate = Static<typeof CustomerCreate>;

export const CustomerUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    email: Type.Optional(Nullable(Email)),
    timeZone: Type.Optional(Nullable(TimeZone)),
    phone: Type.Optional(Phone),
    notes: Type.Optional(Nullable(Notes)),
    metadata: Type.Optional(Metadata),
  },
  {
    title: 'CustomerUpdate',
    examples: [{ phone: '+2348097654321', notes: null }],
    additionalProperties: false,
  },
);
export type CustomerUpdate = Static<typeof CustomerUpdate>;

export const CustomerStatus = Type.Enum(['active', 'archived']);

export const CustomerBalance = Type.Object(
  {
    currency: Type.String(),
    outstanding: Type.Integer({
      description: "What the customer's plans not archived still owe (their balances).",
    }),
    overdue: Type.Integer({
      description:
        'The part of outstanding that is overdue now, as GET /reports/overdue counts it: per plan, what its obligations past their due date still ask (overdue from the end of the due date, before the worker records it), or its whole balance once its dueDate has passed.',
    }),
    credit: Type.Integer({
      description:
        "The customer's credit: unapplied payments (money a provider reported that no plan took: an overpayment's excess, money for a closed plan or in another currency). Apply it with POST /payments/{id}/apply, or refund it.",
    }),
  },
  { title: 'CustomerBalance' },
);
export type CustomerBalance = Static<typeof CustomerBalance>;

export const Customer = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    email: Nullable(Type.String()),
    timeZone: Nullable(
      Type.String({ description: 'IANA time zone of the customer’s quiet hours; null: the workspace’s.' }),
    ),
    phone: Type.String({ description: 'E.164' }),
    notes: Nullable(Type.String()),
    metadata: Metadata,
    status: CustomerStatus,
    createdAt: Instant,
    updatedAt: Instant,
    archivedAt: Nullable(Instant),
    balances: Type.Array(CustomerBalance, {
      description: 'Per currency the customer owes or holds money in, by currency code; empty when none.',
    }),
    optOuts: Type.Array(Type.Enum(['sms', 'whatsapp', 'email']), {
      description:
        'Channels the customer asked not to be messaged on (STOP in a reply); START opts back in. No reminder goes on them, automatic or not: each is logged skipped, opted_out.',
    }),
  },
  {
    title: 'Customer',
    examples: [
      {
        id: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B',
        name: 'Ada Obi',
        email: 'ada.obi@example.com',
        timeZone: null,
        phone: '+2348031234567',
        notes: 'Prefers transfers on Fridays',
        metadata: { branch: 'Ikeja' },
        status: 'active',
        createdAt: '2026-11-02T09:15:00.000Z',
        updatedAt: '2026-11-02T09:15:00.000Z',
        archivedAt: null,
        balances: [{ currency: 'NGN', outstanding: 22500000, overdue: 7500000, credit: 0 }],
        optOuts: [],
      },
    ],
  },
);
export type Customer = Static<typeof Customer>;

export const CustomerListQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(CustomerStatus),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          "Name, e-mail or phone contains it; a q that reads as a phone number in the workspace's country (0803 123 4567) also matches that number however it was written.",
      }),
    ),
    phone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 32,
        description:
          "Customers with this phone number, written in any form (+2348031234567, 0803 123 4567 read in the workspace's country). Several customers may share a number; all are listed.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CustomerListQuery = Static<typeof CustomerListQuery>;
