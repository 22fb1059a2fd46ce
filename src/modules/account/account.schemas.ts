import { type Static, Type } from 'typebox';
import { LATE_FEE_TYPES, MAX_FEE_DAYS } from '../../lib/late-fee.js';
import { CalendarDate, Instant, Nullable } from '../shared.schemas.js';
import {
  DEFAULT_SUBSCRIPTION_PLAN,
  SUBSCRIPTION_PLANS,
  subscriptionPlanById,
} from '../workspaces/subscription-plans.js';

export const Mode = Type.Enum(['test', 'live']);

const TIME_ZONE_CHANGE =
  'A new time zone applies to what is made afterwards: schedules created from then on (their due dates are ' +
  'calendar dates in it), reports, quiet hours of reminders and what "today" is. Existing due dates stay as ' +
  'they are, and a schedule made before keeps the zone it was made with (its `timezone`), so its later ' +
  'instalments do not move either.';

const Settings = {
  name: Type.String({ description: 'The business name payers see, 1 to 200 characters.' }),
  currency: Type.String({
    description: 'ISO 4217 code, validated against the real list: the currency of plans made without one.',
  }),
  timeZone: Type.String({
    description: `IANA time zone (such as Africa/Lagos) of calendar dates. ${TIME_ZONE_CHANGE}`,
  }),
};

const Contact = {
  supportEmail: Type.String({ description: 'How payers reach the business by e-mail.' }),
  supportPhone: Type.String({ description: 'How payers reach the business by phone, E.164.' }),
  brandColor: Type.String({ description: 'Colour of payer pages, `#rrggbb` in lower case.' }),
};

const Time = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'Local time, HH:MM.' });
const ContactChannel = Type.Enum(['sms', 'whatsapp', 'email']);
const POLICY_DESCRIPTION =
  'How paytrack contacts customers on its own (automatic reminders): never in quietHours, local time in the customer’s timeZone when it has one, else the workspace’s (a message that falls in them waits for their end, logged skipped with quiet_hours); at most maxPerDay automatic messages to a customer in 24 hours and maxPerWeek in 7 days (past them the reminder is skipped, frequency_cap); on the first of channels the customer can be reached on and has not opted out of. A reminder the business queues through the API passes the caps but never an opt-out.';

export const ContactPolicy = Type.Object(
  {
    quietHours: Type.Object({ start: Time, end: Time }),
    maxPerDay: Type.Integer({ minimum: 0, maximum: 100 }),
    maxPerWeek: Type.Integer({ minimum: 0, maximum: 100 }),
    channels: Type.Array(ContactChannel, { minItems: 1, maxItems: 3, uniqueItems: true }),
  },
  { title: 'ContactPolicy', description: POLICY_DESCRIPTION },
);

const ContactPolicyChange = Type.Object(
  {
    quietHours: Type.Optional(Type.Object({ start: Time, end: Time }, { additionalProperties: false })),
    maxPerDay: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    maxPerWeek: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    channels: Type.Optional(Type.Array(ContactChannel, { minItems: 1, maxItems: 3, uniqueItems: true })),
  },
  {
    additionalProperties: false,
    description:
      'What to change of the contact policy; what is left out stays. Null restores the defaults (21:00 to 08:00, 1 a day, 3 a week, sms then whatsapp then email).',
  },
);

const RECEIPTS_DESCRIPTION =
  'Whether each new receipt is sent to its customer on its own (send), and on which channels in order (channels): the first the customer can be reached on and has not opted out of. An e-mail carries the receipt as PDF; SMS and WhatsApp carry its link. Sent at once through the reminder channels (listed with the reminders, source receipt, with their logs); quiet hours and the frequency caps do not hold a receipt back, an opt-out does.';

export const ReceiptSettings = Type.Object(
  {
    send: Type.Boolean(),
    channels: Type.Array(ContactChannel, { minItems: 1, maxItems: 3, uniqueItems: true }),
  },
  { title: 'ReceiptSettings', description: RECEIPTS_DESCRIPTION },
);

const ReceiptSettingsChange = Type.Object(
  {
    send: Type.Optional(Type.Boolean()),
    channels: Type.Optional(Type.Array(ContactChannel, { minItems: 1, maxItems: 3, uniqueItems: true })),
  },
  {
    additionalProperties: false,
    description:
      'What to change of the receipt settings; what is left out stays. Null restores the defaults (not sent; email, whatsapp, sms).',
  },
);

const CUSTOMER_PAGE_DESCRIPTION =
  "inReminders: automatic reminders carry a link to the customer's own page (a new link each, working 30 days), where they see what they owe and pay.";

export const CustomerPageSettings = Type.Object(
  { inReminders: Type.Boolean() },
  { title: 'CustomerPageSettings', description: CUSTOMER_PAGE_DESCRIPTION, additionalProperties: false },
);

const LATE_FEE_DEFAULT_DESCRIPTION =
  "The late fee policy a schedule created without its own late_fee takes, copied at its creation (changing the default later does not change existing schedules; a schedule's own late_fee, null included, wins). Null: none. The parts mean what the schedule's late_fee parts mean (type fixed: value in minor units; percent: value a percentage of what the instalment still asks, at most 2 decimals; everyDays null: once; graceDays after the instalment is overdue; caps on the fees of one instalment and of one plan, waived fees not counted, the last fee cut to fit).";
const MAX_MONEY = 1_000_000_000_000;

export const LateFeeDefault = Type.Object(
  {
    type: Type.Enum(LATE_FEE_TYPES),
    value: Type.Number(),
    everyDays: Nullable(Type.Integer()),
    graceDays: Type.Integer(),
    capPerObligation: Nullable(Type.Integer()),
    capPerPlan: Nullable(Type.Integer()),
  },
  { title: 'LateFeeDefault', description: LATE_FEE_DEFAULT_DESCRIPTION },
);

const LateFeeDefaultChange = Type.Object(
  {
    type: Type.Enum(LATE_FEE_TYPES),
    value: Type.Number({ exclusiveMinimum: 0, maximum: MAX_MONEY }),
    everyDays: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: MAX_FEE_DAYS }))),
    graceDays: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_FEE_DAYS })),
    capPerObligation: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: MAX_MONEY }))),
    capPerPlan: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: MAX_MONEY }))),
  },
  {
    additionalProperties: false,
    description: `The new default, replacing the old one whole (parts left out take their defaults: everyDays null, graceDays 0, no caps); null: none. ${LATE_FEE_DEFAULT_DESCRIPTION}`,
  },
);

const COUNTRY_DESCRIPTION =
  'ISO 3166-1 alpha-2 code (such as NG), validated against the real list. Phone numbers written without ' +
  '`+` and a country code (0803 123 4567) are read in it and kept in E.164.';

export const AccountContext = Type.Object(
  {
    id: Type.String({ description: 'The workspace: the same for its test and live keys.' }),
    name: Settings.name,
    mode: Mode,
    currency: Settings.currency,
    timeZone: Settings.timeZone,
    country: Nullable(Type.String({ description: `${COUNTRY_DESCRIPTION} Null until set.` })),
    supportEmail: Nullable(Contact.supportEmail),
    supportPhone: Nullable(Contact.supportPhone),
    brandColor: Nullable(Contact.brandColor),
    contactPolicy: ContactPolicy,
    receipts: ReceiptSettings,
    customerPage: CustomerPageSettings,
    lateFeeDefault: Nullable(LateFeeDefault),
    createdAt: Instant,
    workspace: Type.Object({
      id: Type.String(),
      name: Type.String(),
      defaultCurrency: Type.String({ description: 'ISO 4217; plans without a currency use it.' }),
      timezone: Type.String({ description: 'IANA time zone of calendar dates.' }),
      createdAt: Instant,
    }),
    livemode: Type.Boolean({ description: 'True for a live key, false for a test key.' }),
    apiKey: Type.Union(
      [
        Type.Object({
          id: Type.String(),
          prefix: Type.String({ description: 'The visible start of the key, e.g. pt_test_4f9c.' }),
          scopes: Type.Union([Type.Literal('all'), Type.Array(Type.String())], {
            description: '`all`, or the listed scopes such as `tracks:read`; `:write` includes `:read`.',
          }),
        }),
        Type.Null(),
      ],
      { description: 'The key in use; null when a person acts through the console.' },
    ),
  },
  {
    title: 'AccountContext',
    description:
      'The workspace of the calling key, its settings (one workspace for test and live keys alike), the mode ' +
      'and the key. `workspace` repeats the first settings under their earlier names.',
    examples: [
      {
        id: 'ws_01JD7Z1A2B3C4D5E6F7G8H9J0K',
        name: 'Mama Put Ventures',
        mode: 'test',
        currency: 'NGN',
        timeZone: 'Africa/Lagos',
        country: 'NG',
        supportEmail: 'help@mamaput.example',
        supportPhone: '+2348031234567',
        brandColor: '#0a7d4f',
        contactPolicy: {
          quietHours: { start: '21:00', end: '08:00' },
          maxPerDay: 1,
          maxPerWeek: 3,
          channels: ['sms', 'whatsapp', 'email'],
        },
        receipts: { send: true, channels: ['whatsapp', 'email'] },
        customerPage: { inReminders: true },
        lateFeeDefault: {
          type: 'fixed',
          value: 250000,
          everyDays: 30,
          graceDays: 5,
          capPerObligation: 1000000,
          capPerPlan: null,
        },
        createdAt: '2026-11-02T09:15:00.000Z',
        workspace: {
          id: 'ws_01JD7Z1A2B3C4D5E6F7G8H9J0K',
          name: 'Mama Put Ventures',
          defaultCurrency: 'NGN',
          timezone: 'Africa/Lagos',
          createdAt: '2026-11-02T09:15:00.000Z',
        },
        livemode: false,
        apiKey: { id: 'key_01JD7Z1A2B3C4D5E6F7G8H9J0M', prefix: 'pt_test_4f9c', scopes: 'all' },
      },
    ],
  },
);
export type AccountContext = Static<typeof AccountContext>;

export const AccountUpdate = Type.Object(
  {
    name: Type.Optional(Type.String({ ...Settings.name, maxLength: 200 })),
    currency: Type.Optional(Type.String({ ...Settings.currency, maxLength: 3 })),
    timeZone: Type.Optional(Type.String({ ...Settings.timeZone, maxLength: 64 })),
    country: Type.Optional(Type.String({ description: COUNTRY_DESCRIPTION, maxLength: 2 })),
    supportEmail: Type.Optional(
      Nullable(
        Type.String({
          ...Contact.supportEmail,
          description: 'E-mail address; null clears it.',
          maxLength: 254,
        }),
      ),
    ),
    supportPhone: Type.Optional(
      Nullable(
        Type.String({
          description:
            "Phone number as people write it: international (+2348031234567), or local (0803 123 4567) read in the workspace's country, the new one when the same request sets it. Kept in E.164; null clears it.",
          maxLength: 32,
        }),
      ),
    ),
    brandColor: Type.Optional(
      Nullable(Type.String({ description: '`#rrggbb` (kept in lower case); null clears it.', maxLength: 7 })),
    ),
    contactPolicy: Type.Optional(Nullable(ContactPolicyChange)),
    receipts: Type.Optional(Nullable(ReceiptSettingsChange)),
    customerPage: Type.Optional(
      Type.Object(
        { inReminders: Type.Boolean() },
        { additionalProperties: false, description: CUSTOMER_PAGE_DESCRIPTION },
      ),
    ),
    lateFeeDefault: Type.Optional(Nullable(LateFeeDefaultChange)),
  },
  {
    title: 'AccountUpdate',
    description:
      'The settings to change; at least one. Every bad field is named at once, and nothing changes unless all are good.',
    additionalProperties: false,
    examples: [
      {
        name: 'Mama Put Ventures',
        currency: 'NGN',
        timeZone: 'Africa/Lagos',
        country: 'NG',
        supportEmail: 'help@mamaput.example',
        supportPhone: '0803 123 4567',
        brandColor: '#0A7D4F',
      },
    ],
  },
);
export type AccountUpdate = Static<typeof AccountUpdate>;

/** The longest period one usage request covers. */
export const MAX_USAGE_DAYS = 366;

export const UsageQuery = Type.Object(
  {
    from: Type.Optional(
      Type.String({ format: 'date', description: 'First UTC day, YYYY-MM-DD; default 29 days before `to`.' }),
    ),
    to: Type.Optional(
      Type.String({ format: 'date', description: 'Last UTC day, YYYY-MM-DD; default today.' }),
    ),
  },
  { additionalProperties: false },
);
export type UsageQuery = Static<typeof UsageQuery>;

const Counts = {
  requests: Type.Integer({ minimum: 0 }),
  errors: Type.Integer({ minimum: 0, description: 'Requests answered with a 4xx or 5xx status.' }),
};

export const Usage = Type.Object(
  {
    period: Type.Object({ from: CalendarDate, to: CalendarDate }),
    totals: Type.Object(Counts),
    daily: Type.Array(Type.Object({ day: CalendarDate, ...Counts }), {
      description: 'Every UTC day of the period, oldest first, including days without requests.',
    }),
    byKey: Type.Array(Type.Object({ keyId: Type.String(), ...Counts }), {
      description: 'Keys that made requests in the period, most requests first.',
    }),
  },
  {
    title: 'Usage',
    examples: [
      {
        period: { from: '2027-01-30', to: '2027-01-31' },
        totals: { requests: 1840, errors: 12 },
        daily: [
          { day: '2027-01-30', requests: 910, errors: 5 },
          { day: '2027-01-31', requests: 930, errors: 7 },
        ],
        byKey: [
          { keyId: 'key_01JD7ZB2C3D4E5F6G7H8J9K0M1', requests: 1500, errors: 9 },
          { keyId: 'key_01JD7ZC3D4E5F6G7H8J9K0M1N2', requests: 340, errors: 3 },
        ],
      },
    ],
    description:
      'Keyed requests of this workspace in the mode of the calling key, per UTC day. A request is counted ' +
      'once its response has been sent, so the request that reads usage is not in its own figures; it ' +
      'appears in the next read.',
  },
);
export type Usage = Static<typeof Usage>;

const Plan = Type.Object({
  id: Type.String(),
  name: Type.String(),
  rateLimitPerMinute: Type.Integer({ description: 'Requests per minute per API key.' }),
  limits: Type.Object({ webhookEndpoints: Type.Integer(), apiKeys: Type.Integer() }),
});

export const Subscription = Type.Object(
  {
    plan: Plan,
    effectiveRateLimitPerMinute: Type.Integer({
      description:
        "The per-key limit in force: the server's RATE_LIMIT_PER_MINUTE when set, else the plan's.",
    }),
    plans: Type.Array(Plan, { description: 'Every plan on offer.' }),
  },
  {
    title: 'Subscription',
    examples: [
      {
        plan: subscriptionPlanById(DEFAULT_SUBSCRIPTION_PLAN),
        effectiveRateLimitPerMinute: 600,
        plans: SUBSCRIPTION_PLANS,
      },
    ],
  },
);
export type Subscription = Static<typeof Subscription>;
