import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { REMINDER_STAGES } from '../schedules/index.js';
import { Instant, Nullable } from '../shared.schemas.js';
import { CANCEL_REASONS, REMINDER_CHANNELS, REMINDER_STATUSES, SKIP_REASONS } from './reminders.table.js';

const Id = Type.String({ minLength: 1, maxLength: 64 });
const Channel = Type.Enum(REMINDER_CHANNELS);

const reminderExample = {
  id: 'rem_01JD7ZH1J2K3M4N5P6Q7R8S9T0',
  customerId: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B',
  trackId: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C',
  obligationId: 'obl_01JD7ZA1B2C3D4E5F6G7H8J9K1',
  channel: 'sms',
  to: '+2348031234567',
  subject: null,
  message:
    'Hello Adaeze, this is Mama Put Stores. ₦75,000.00 for Generator, 12 months is due on 31 Jan 2027. Thank you.',
  status: 'sent',
  skipReason: null,
  sendAt: '2027-01-31T07:00:00.000Z',
  sentAt: '2027-01-31T07:00:04.000Z',
  attempts: 1,
  lastError: null,
  source: 'schedule',
  paymentId: null,
  stage: 'due_day',
  createdAt: '2027-01-30T23:00:00.000Z',
};

export const Reminder = Type.Object(
  {
    id: Type.String(),
    customerId: Type.String(),
    trackId: Nullable(Type.String()),
    obligationId: Nullable(Type.String()),
    channel: Channel,
    to: Type.String({ description: 'The e-mail address or phone number it goes to.' }),
    subject: Nullable(Type.String({ description: 'E-mail only.' })),
    message: Type.String({
      description:
        'The text: as given in the request, or written from the template of its stage and channel (written again with the figures of the moment when it is sent).',
    }),
    status: Type.Enum(REMINDER_STATUSES, {
      description:
        'queued (waiting for sendAt, quiet hours or a retry), sent, failed (four tries failed), cancelled (its customer or plan was archived first), skipped (see skipReason).',
    }),
    skipReason: Nullable(
      Type.Enum([...SKIP_REASONS, ...CANCEL_REASONS], {
        description:
          'Why it was not sent: the obligation or plan was paid or cancelled, the schedule paused or cancelled, a collection attempt for it was processing, or a later stage fell due first (superseded); for cancelled, the customer or plan archived, or the customer page link it was to send revoked or expired before it went (link_unavailable).',
      }),
    ),
    sendAt: Instant,
    sentAt: Nullable(Instant),
    attempts: Type.Integer({
      minimum: 0,
      description: 'Delivery tries so far (at most 4: the first and 3 retries).',
    }),
    lastError: Nullable(Type.String()),
    source: Type.Enum(['api', 'schedule', 'receipt'], {
      description:
        "api: queued by the business; schedule: an automatic stage of a schedule; receipt: a payment's receipt, sent on its own when the workspace's receipts.send is on (see paymentId).",
    }),
    paymentId: Nullable(Type.String({ description: 'The payment whose receipt a receipt message sends.' })),
    stage: Nullable(
      Type.Enum(
        REMINDER_STAGES.map((s) => s.name),
        { description: 'The automatic stage of a schedule reminder.' },
      ),
    ),
    createdAt: Instant,
  },
  { title: 'Reminder', examples: [reminderExample] },
);
export type Reminder = Static<typeof Reminder>;

export const ReminderCreate = Type.Object(
  {
    customerId: Type.Optional(Id),
    trackId: Type.Optional(Id),
    obligationId: Type.Optional(Id),
    channel: Type.Optional({
      ...Channel,
      description: 'Defaults to email when the customer has an e-mail address, else sms.',
    }),
    message: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        pattern: '\\S',
        description: 'Sent as written; without it the text comes from the template.',
      }),
    ),
    sendAt: Type.Optional({ ...Instant, description: 'When to send it; defaults to now.' }),
  },
  {
    title: 'ReminderCreate',
    description:
      'At least one of customerId, trackId and obligationId; the customer comes from the plan or obligation.',
    examples: [{ trackId: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C', channel: 'sms' }],
    additionalProperties: false,
  },
);
export type ReminderCreate = Static<typeof ReminderCreate>;

export const ReminderSend = Type.Object(
  {
    reminderIds: Type.Optional(
      Type.Array(Id, {
        minItems: 1,
        maxItems: 100,
        uniqueItems: true,
        description:
          'Queued reminders to send now, whatever their sendAt; without it, every queued reminder that is due.',
      }),
    ),
  },
  { title: 'ReminderSend', examples: [{}], additionalProperties: false },
);
export type ReminderSend = Static<typeof ReminderSend>;

export const ReminderSendAccepted = Type.Object(
  {
    queued: Type.Integer({ minimum: 0, description: 'How many reminders will be sent now.' }),
    reminderIds: Type.Array(Type.String()),
  },
  {
    title: 'ReminderSendAccepted',
    examples: [
      { queued: 2, reminderIds: ['rem_01JD7ZD4E5F6G7H8J9K0M1N2P3', 'rem_01JD7ZE5F6G7H8J9K0M1N2P3Q4'] },
    ],
  },
);
export type ReminderSendAccepted = Static<typeof ReminderSendAccepted>;

export const ReminderListQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(Type.Enum(REMINDER_STATUSES)),
    channel: Type.Optional(Channel),
    source: Type.Optional(Type.Enum(['api', 'schedule'])),
    customerId: Type.Optional(Id),
    trackId: Type.Optional(Id),
    obligationId: Type.Optional(Id),
  },
  { additionalProperties: false },
);
export type ReminderListQuery = Static<typeof ReminderListQuery>;

const REMINDER_LOG_STATUSES = ['sent', 'delivered', 'undelivered', 'failed', 'simulated', 'skipped'] as const;

export const ReminderLog = Type.Object(
  {
    id: Type.String(),
    reminderId: Type.String(),
    channel: Channel,
    to: Type.String(),
    status: Type.Enum(REMINDER_LOG_STATUSES, {
      description:
        'sent: handed to the provider; delivered or undelivered: what the provider said after (its receipt; see deliveredAt and providerErrorCode); failed: not handed over; simulated: test mode, nothing left the machine; skipped: held back by the contact policy (see skipReason).',
    }),
    provider: Type.String({ description: 'simulator, smtp, the message provider’s name, or none.' }),
    providerMessageId: Nullable(Type.String()),
    error: Nullable(Type.String()),
    deliveredAt: Nullable({
      ...Instant,
      description: 'When the provider said it was delivered or could not be.',
    }),
    providerErrorCode: Nullable(
      Type.String({ description: "The provider's error code for an undelivered message." }),
    ),
    skipReason: Nullable(
      Type.Enum(['opted_out', 'quiet_hours', 'frequency_cap'], {
        description:
          'opted_out: the customer sent STOP on this channel; quiet_hours: held until they end (the reminder is sent then); frequency_cap: the customer had as many automatic messages as the contact policy allows.',
      }),
    ),
    createdAt: Instant,
  },
  {
    title: 'ReminderLog',
    examples: [
      {
        id: 'rml_01JD7ZF6G7H8J9K0M1N2P3Q4R5',
        reminderId: 'rem_01JD7ZD4E5F6G7H8J9K0M1N2P3',
        channel: 'sms',
        to: '+2348031234567',
        status: 'simulated',
        provider: 'simulator',
        providerMessageId: null,
        error: null,
        deliveredAt: null,
        providerErrorCode: null,
        skipReason: null,
        createdAt: '2027-01-28T08:00:01.000Z',
      },
    ],
  },
);
export type ReminderLog = Static<typeof ReminderLog>;

export const ReminderLogListQuery = Type.Object(
  {
    ...PaginationQuery,
    reminderId: Type.Optional(Id),
    status: Type.Optional(Type.Enum(REMINDER_LOG_STATUSES)),
    channel: Type.Optional(Channel),
  },
  { additionalProperties: false },
);
export type ReminderLogListQuery = Static<typeof ReminderLogListQuery>;
