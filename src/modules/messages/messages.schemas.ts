import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { Instant, Nullable } from '../shared.schemas.js';
import { INBOUND_ACTIONS } from './messages.table.js';

const Id = Type.String({ minLength: 1, maxLength: 64 });

export const InboundMessage = Type.Object(
  {
    id: Type.String(),
    customerId: Nullable(
      Type.String({ description: 'The customer with the sender’s number; null when none has it.' }),
    ),
    channel: Type.Enum(['sms', 'whatsapp']),
    from: Type.String({ description: 'The sender’s number, E.164.' }),
    text: Type.String(),
    receivedAt: Instant,
    action: Type.Enum(INBOUND_ACTIONS, {
      description:
        'opt_out: STOP (or STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT) opted the customer out of this channel at once; opt_in: START (or UNSTOP, YES) opted back in; none: any other reply, for the business to act on (event message.received).',
    }),
  },
  {
    title: 'InboundMessage',
    examples: [
      {
        id: 'msg_01JD7ZF6G7H8J9K0M1N2P3Q4R5',
        customerId: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B',
        channel: 'sms',
        from: '+2348031234567',
        text: 'I will pay on Friday',
        receivedAt: '2027-01-28T08:03:11.000Z',
        action: 'none',
      },
    ],
  },
);
export type InboundMessage = Static<typeof InboundMessage>;

export const InboundMessageListQuery = Type.Object(
  { ...PaginationQuery, customerId: Type.Optional(Id) },
  { additionalProperties: false },
);
export type InboundMessageListQuery = Static<typeof InboundMessageListQuery>;

export const TestInboundMessage = Type.Object(
  {
    customerId: Id,
    channel: Type.Enum(['sms', 'whatsapp']),
    text: Type.String({ minLength: 1, maxLength: 1600 }),
  },
  {
    title: 'TestInboundMessage',
    examples: [{ customerId: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B', channel: 'sms', text: 'STOP' }],
    additionalProperties: false,
  },
);
export type TestInboundMessage = Static<typeof TestInboundMessage>;

export const CallbackReceipt = Type.Object(
  {
    events: Type.Array(
      Type.Object({
        id: Type.String(),
        outcome: Type.String({
          description:
            'delivered, undelivered, unchanged or unmatched (a receipt), opt_out, opt_in or none (an inbound message), ignored, or duplicate (received before).',
        }),
      }),
    ),
  },
  {
    title: 'MessageCallbackReceipt',
    examples: [{ events: [{ id: 'SM0123:delivered', outcome: 'delivered' }] }],
  },
);
export type CallbackReceipt = Static<typeof CallbackReceipt>;

export const CallbackParams = Type.Object({ settingId: Type.String({ minLength: 1, maxLength: 64 }) });
