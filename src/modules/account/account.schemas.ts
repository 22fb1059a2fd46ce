import { type Static, Type } from 'typebox';
import { CalendarDate, Instant } from '../shared.schemas.js';
import { DEFAULT_PLAN, PLANS, planById } from './plans.js';

export const Mode = Type.Enum(['test', 'live']);

export const AccountContext = Type.Object(
  {
    workspace: Type.Object({
      id: Type.String(),
      name: Type.String(),
      defaultCurrency: Type.String({ description: 'ISO 4217; plans without a currency use it.' }),
      timezone: Type.String({ description: 'IANA time zone of calendar dates.' }),
      createdAt: Instant,
    }),
    mode: Mode,
    livemode: Type.Boolean({ description: 'True for a live key, false for a test key.' }),
    apiKey: Type.Object({
      id: Type.String(),
      prefix: Type.String({ description: 'The visible start of the key, e.g. pt_test_4f9c.' }),
      scopes: Type.Union([Type.Literal('all'), Type.Array(Type.String())], {
        description: '`all`, or the listed scopes such as `tracks:read`; `:write` includes `:read`.',
      }),
    }),
  },
  {
    title: 'AccountContext',
    examples: [
      {
        workspace: {
          id: 'ws_01JD7Z1A2B3C4D5E6F7G8H9J0K',
          name: 'Mama Put Ventures',
          defaultCurrency: 'NGN',
          timezone: 'Africa/Lagos',
          createdAt: '2026-11-02T09:15:00.000Z',
        },
        mode: 'test',
        livemode: false,
        apiKey: { id: 'key_01JD7Z1A2B3C4D5E6F7G8H9J0M', prefix: 'pt_test_4f9c', scopes: 'all' },
      },
    ],
  },
);
export type AccountContext = Static<typeof AccountContext>;

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
    examples: [{ plan: planById(DEFAULT_PLAN), effectiveRateLimitPerMinute: 600, plans: PLANS }],
  },
);
export type Subscription = Static<typeof Subscription>;
