import { type Static, Type } from 'typebox';
import { NOTIFICATION_TYPES } from '../../ports/provider-notifications.js';
import { Amount, Currency, Instant, Nullable } from '../shared.schemas.js';
import { NOTIFICATION_OUTCOMES } from './providers.table.js';

export const ProviderNotification = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "The provider's id of this notification: a second delivery changes nothing.",
    }),
    type: Type.Enum(NOTIFICATION_TYPES),
    reference: Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'The virtual account number, the checkout id, or the collection attempt id (att_) it is about.',
    }),
    amount: Amount,
    currency: Currency,
    occurred_at: Instant,
    failure_code: Type.Optional(Type.String({ maxLength: 100, description: 'charge.failed: why.' })),
  },
  {
    title: 'ProviderNotification',
    examples: [
      {
        id: 'evt_gw_883104',
        type: 'charge.succeeded',
        reference: 'att_01JD7ZE5F6G7H8J9K0M1N2P3Q4',
        amount: 7500000,
        currency: 'NGN',
        occurred_at: '2027-01-31T00:01:10Z',
      },
    ],
    additionalProperties: true,
  },
);
export type ProviderNotification = Static<typeof ProviderNotification>;

export const NotificationReceipt = Type.Object(
  {
    id: Type.String(),
    type: Type.String(),
    outcome: Type.Enum(NOTIFICATION_OUTCOMES, {
      description:
        "recorded: it changed what it is about (a payment recorded on its plan, an attempt answered; an excess over the balance is recorded too, as the customer's credit, named in `reason`); unapplied: the money is recorded as an unapplied payment (`payment_id`), its reason in `reason` (plan_closed, currency_mismatch, unknown_reference, overpayment); already_recorded: that was done before (by an earlier delivery, or by the charge itself); unmatched: a failure for an attempt this workspace does not know (no money); refused: only in replies to deliveries received by an older version, which did not record such money.",
    }),
    payment_id: Nullable(Type.String()),
    reason: Nullable(
      Type.String({ description: 'Why the money is unapplied, or the credit an overpayment left.' }),
    ),
    replayed: Type.Boolean({ description: 'true when this notification id was received before.' }),
  },
  {
    title: 'NotificationReceipt',
    examples: [
      {
        id: 'evt_gw_883104',
        type: 'charge.succeeded',
        outcome: 'recorded',
        payment_id: 'pay_01JD7ZQ4N6X3E2W9V8T5R4K2M1',
        reason: null,
        replayed: false,
      },
    ],
  },
);
export type NotificationReceipt = Static<typeof NotificationReceipt>;

export const SettingParams = Type.Object({ settingId: Type.String({ minLength: 1, maxLength: 64 }) });

export const WebhookReceipt = Type.Object(
  {
    events: Type.Array(
      Type.Object({
        id: Type.String({
          description: "The provider's event id (or, for Paystack, its type and object id).",
        }),
        type: Type.String({ description: "The provider's event type, as it sent it." }),
        outcome: Type.String({
          description:
            'recorded or unapplied (money recorded; see detail), already_recorded (that money was recorded before), handled (a mandate, an attempt or a refund changed), ignored (an event paytrack does not use), unmatched (a failure or an authorization about nothing here).',
        }),
        detail: Nullable(Type.String()),
        replayed: Type.Boolean({ description: 'true when this event id was received before.' }),
      }),
    ),
  },
  {
    title: 'WebhookReceipt',
    examples: [
      {
        events: [
          {
            id: 'charge.success:4099260516',
            type: 'charge.success',
            outcome: 'recorded',
            detail: 'payment pay_01JD7ZQ4N6X3E2W9V8T5R4K2M1',
            replayed: false,
          },
        ],
      },
    ],
  },
);
export type WebhookReceipt = Static<typeof WebhookReceipt>;
