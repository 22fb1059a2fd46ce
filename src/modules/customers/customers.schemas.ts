import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { Instant, Metadata, Nullable, Text200 } from '../shared.schemas.js';

const Name = Text200;
const Email = Type.String({ format: 'email', maxLength: 254 });
const Phone = Type.String({
  minLength: 1,
  maxLength: 32,
  description: 'International form, e.g. +2348031234567',
});
const Notes = Type.String({ maxLength: 2000 });

export const CustomerCreate = Type.Object(
  {
    name: Name,
    email: Type.Optional(Email),
    phone: Phone,
    notes: Type.Optional(Notes),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CustomerCreate = Static<typeof CustomerCreate>;

export const CustomerUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    email: Type.Optional(Nullable(Email)),
    phone: Type.Optional(Phone),
    notes: Type.Optional(Nullable(Notes)),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CustomerUpdate = Static<typeof CustomerUpdate>;

export const CustomerStatus = Type.Enum(['active', 'archived']);

export const Customer = Type.Object({
  id: Type.String(),
  name: Type.String(),
  email: Nullable(Type.String()),
  phone: Type.String({ description: 'E.164' }),
  notes: Nullable(Type.String()),
  metadata: Metadata,
  status: CustomerStatus,
  createdAt: Instant,
  updatedAt: Instant,
  archivedAt: Nullable(Instant),
});
export type Customer = Static<typeof Customer>;

export const CustomerListQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(CustomerStatus),
    q: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Name, e-mail or phone contains' }),
    ),
  },
  { additionalProperties: false },
);
export type CustomerListQuery = Static<typeof CustomerListQuery>;
