import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { paymentEventExample } from '../payments/payments.schemas.js';
import { Instant, Nullable } from '../shared.schemas.js';

const Url = Type.String({
  format: 'uri',
  minLength: 1,
  maxLength: 2048,
  description:
    'http or https URL that receives the events. Private, loopback, link-local and reserved addresses are refused ' +
    'unless the server runs with WEBHOOK_ALLOW_PRIVATE=true; user names and passwords in the URL are refused.',
});
const Description = Type.String({ maxLength: 2000 });
const EventTypes = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: 50,
  description:
    'Event types to receive, or ["*"] for all (the default). An unknown type is refused with the list of known ones.',
});

export const WebhookEndpointStatus = Type.Enum(['enabled', 'disabled']);

export const WebhookEndpointCreate = Type.Object(
  { url: Url, description: Type.Optional(Description), eventTypes: Type.Optional(EventTypes) },
  {
    title: 'WebhookEndpointCreate',
    examples: [
      {
        url: 'https://hooks.shop.example.ng/paytrack',
        description: 'Order system',
        eventTypes: ['payment.recorded', 'track.completed'],
      },
    ],
    additionalProperties: false,
  },
);
export type WebhookEndpointCreate = Static<typeof WebhookEndpointCreate>;

export const WebhookEndpointUpdate = Type.Object(
  {
    url: Type.Optional(Url),
    description: Type.Optional(Nullable(Description)),
    eventTypes: Type.Optional(EventTypes),
    status: Type.Optional(
      Type.Enum(['enabled', 'disabled'], {
        description: '`enabled` re-enables a disabled endpoint; `disabled` stops deliveries, like DELETE.',
      }),
    ),
  },
  {
    title: 'WebhookEndpointUpdate',
    examples: [{ eventTypes: ['*'], status: 'enabled' }],
    additionalProperties: false,
  },
);
export type WebhookEndpointUpdate = Static<typeof WebhookEndpointUpdate>;

/** An endpoint, as the examples of the document show it. */
const endpointExample = {
  id: 'whe_01JD7ZA1B3C5D7E9F1G3H5J7K9',
  url: 'https://hooks.shop.example.ng/paytrack',
  description: 'Order system',
  eventTypes: ['payment.recorded', 'track.completed'],
  status: 'enabled',
  createdAt: '2026-11-02T09:15:00.000Z',
  updatedAt: '2026-11-02T09:15:00.000Z',
  disabledAt: null,
};

export const WebhookEndpoint = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    description: Nullable(Type.String()),
    eventTypes: Type.Array(Type.String()),
    status: WebhookEndpointStatus,
    createdAt: Instant,
    updatedAt: Instant,
    disabledAt: Nullable(Instant),
  },
  {
    title: 'WebhookEndpoint',
    examples: [endpointExample],
  },
);
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = Type.Object(
  {
    ...WebhookEndpoint.properties,
    secret: Type.String({
      description:
        'Signing secret (`whsec_<base64>`) for Standard Webhooks signatures. Shown only in this response.',
    }),
  },
  {
    title: 'WebhookEndpointWithSecret',
    examples: [{ ...endpointExample, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw1xgxmPpSpFI=' }],
  },
);
export type WebhookEndpointWithSecret = Static<typeof WebhookEndpointWithSecret>;

export const WebhookEndpointListQuery = Type.Object(
  { ...PaginationQuery, status: Type.Optional(WebhookEndpointStatus) },
  { additionalProperties: false },
);
export type WebhookEndpointListQuery = Static<typeof WebhookEndpointListQuery>;

export const DeliveryStatus = Type.Enum(['succeeded', 'failed']);

export const WebhookDelivery = Type.Object(
  {
    id: Type.String(),
    eventId: Type.String(),
    eventType: Type.String(),
    attemptNumber: Type.Integer({ minimum: 1 }),
    status: DeliveryStatus,
    responseStatus: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    durationMs: Type.Integer({ minimum: 0 }),
    attemptedAt: Instant,
    nextAttemptAt: Nullable(Instant),
  },
  {
    title: 'WebhookDelivery',
    examples: [
      {
        id: 'whd_01JD7ZC3D5E7F9G1H3J5K7M9N1',
        eventId: 'evt_01JD7ZB2C4D6E8F0G2H4J6K8M0',
        eventType: 'payment.recorded',
        attemptNumber: 1,
        status: 'failed',
        responseStatus: 503,
        error: 'HTTP 503',
        durationMs: 84,
        attemptedAt: '2026-11-20T14:03:00.000Z',
        nextAttemptAt: '2026-11-20T14:03:05.084Z',
      },
    ],
  },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const WebhookDeliveryListQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(DeliveryStatus),
    eventId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type WebhookDeliveryListQuery = Static<typeof WebhookDeliveryListQuery>;

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
    title: 'Event',
    examples: [
      {
        id: 'evt_01JD7ZB2C4D6E8F0G2H4J6K8M0',
        type: 'payment.recorded',
        createdAt: '2026-11-20T14:03:00.000Z',
        livemode: false,
        data: {
          object: paymentEventExample,
        },
      },
    ],
    description:
      'An event as delivered: POSTed as JSON with the Standard Webhooks headers webhook-id (the event id), ' +
      'webhook-timestamp (the attempt time) and webhook-signature. Failed deliveries are retried for about 3 days.',
  },
);
export type Event = Static<typeof Event>;
