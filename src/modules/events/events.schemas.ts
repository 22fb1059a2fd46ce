import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { Instant } from '../shared.schemas.js';

/** Events are kept and listed for this many days. */
export const EVENT_RETENTION_DAYS = 30;

export const Event = Type.Object(
  {
    id: Type.String(),
    type: Type.String(),
    createdAt: Instant,
    livemode: Type.Boolean(),
    data: Type.Object({
      object: Type.Unknown({ description: 'The object the event is about, as the API shows it.' }),
      previous_attributes: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), {
          description: 'On update events: the values the changed fields had before.',
        }),
      ),
    }),
  },
  {
    description:
      'An event as delivered: POSTed as JSON with the Standard Webhooks headers webhook-id (the event id), ' +
      'webhook-timestamp (the attempt time) and webhook-signature. Failed deliveries are retried for about 3 days.',
  },
);
export type Event = Static<typeof Event>;

export const EventListQuery = Type.Object(
  {
    ...PaginationQuery,
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'One event type' })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'createdAt at or after' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'createdAt before' })),
  },
  { additionalProperties: false },
);
export type EventListQuery = Static<typeof EventListQuery>;

export const EventResend = Type.Object(
  {
    endpointId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'Only this endpoint (enabled); without it, every enabled endpoint subscribed to the type.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type EventResend = Static<typeof EventResend>;

export const EventResent = Type.Object({
  eventId: Type.String(),
  endpointIds: Type.Array(Type.String(), { description: 'The endpoints a delivery was queued for.' }),
});
export type EventResent = Static<typeof EventResent>;
