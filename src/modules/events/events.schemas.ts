import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';

/** An event as the API shows it is the webhook payload: the webhooks module defines its shape. */
export { Event } from '../webhooks/webhooks.schemas.js';

/** Events are kept and listed for this many days. */
export const EVENT_RETENTION_DAYS = 30;

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
  {
    title: 'EventResend',
    examples: [{ endpointId: 'whe_01JD7ZA1B3C5D7E9F1G3H5J7K9' }],
    additionalProperties: false,
  },
);
export type EventResend = Static<typeof EventResend>;

export const EventResent = Type.Object(
  {
    eventId: Type.String(),
    endpointIds: Type.Array(Type.String(), { description: 'The endpoints a delivery was queued for.' }),
  },
  {
    title: 'EventResent',
    examples: [
      { eventId: 'evt_01JD7ZB2C4D6E8F0G2H4J6K8M0', endpointIds: ['whe_01JD7ZA1B3C5D7E9F1G3H5J7K9'] },
    ],
  },
);
export type EventResent = Static<typeof EventResent>;
