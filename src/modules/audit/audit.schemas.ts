import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { Instant, Nullable } from '../shared.schemas.js';

const Id = Type.String({ minLength: 1, maxLength: 64 });

export const AuditListQuery = Type.Object(
  {
    ...PaginationQuery,
    actor_id: Type.Optional(
      Type.String({ ...Id, description: 'Only changes by this person (usr_) or key (key_)' }),
    ),
    record_id: Type.Optional(Type.String({ ...Id, description: 'Only changes to this record' })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'createdAt at or after' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'createdAt before' })),
  },
  { additionalProperties: false },
);
export type AuditListQuery = Static<typeof AuditListQuery>;

export const AuditEntry = Type.Object(
  {
    id: Type.String({ description: 'aud_…' }),
    actor: Type.Object({
      type: Type.Union(
        [Type.Literal('user'), Type.Literal('key'), Type.Literal('payer'), Type.Literal('system')],
        {
          description:
            'user: a person in the console; key: an API key; payer: the customer, through a link to their page (actor id: the customer); system: paytrack itself.',
        },
      ),
      id: Nullable(Type.String()),
    }),
    action: Type.String({
      description: 'What was done, e.g. `payments.create`, `payments.reverse`, `tracks.update`.',
    }),
    record: Type.Object({ type: Nullable(Type.String()), id: Nullable(Type.String()) }),
    changes: Type.Record(Type.String(), Type.Array(Type.Unknown(), { minItems: 2, maxItems: 2 }), {
      description: 'Each field that changed: [before, after]; before is null for a new record.',
    }),
    reason: Nullable(Type.String()),
    requestId: Nullable(Type.String()),
    createdAt: Instant,
  },
  {
    title: 'AuditEntry',
    description: 'One change in the audit trail. Entries are never changed or deleted.',
    examples: [
      {
        id: 'aud_01JD7ZQ4N6X3E2W9V8T5R4K2M1',
        actor: { type: 'user', id: 'usr_01JD7Z1A2B3C4D5E6F7G8H9J0M' },
        action: 'payments.reverse',
        record: { type: 'payment', id: 'pay_01JD7Z2B3C4D5E6F7G8H9J0MN1' },
        changes: { status: ['recorded', 'reversed'] },
        reason: 'Cheque bounced',
        requestId: 'req_01JD7ZQ4N6X3E2W9V8T5R4K2M1',
        createdAt: '2026-11-26T09:30:00.000Z',
      },
    ],
  },
);
export type AuditEntry = Static<typeof AuditEntry>;
