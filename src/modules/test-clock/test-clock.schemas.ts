import { type Static, Type } from 'typebox';
import { Instant } from '../shared.schemas.js';

/** How far past real time (the server's clock) an advance may take the test clock: 10 years, as 3,652 days. */
export const MAX_AHEAD_DAYS = 3_652;

export const TestClock = Type.Object(
  {
    now: { ...Instant, description: "The workspace's test-mode time." },
    offsetMs: Type.Integer({ description: 'How far the test clock is ahead of real time, in milliseconds.' }),
    status: Type.Enum(['ready', 'advancing'], {
      description:
        '`advancing` while the worker finishes the due work of an advance that answered 202 (another advance ' +
        'is refused with 409 until then); `ready` otherwise.',
    }),
  },
  {
    title: 'TestClock',
    examples: [{ now: '2026-12-23T09:00:00.000Z', offsetMs: 2592000000, status: 'ready' }],
  },
);
export type TestClock = Static<typeof TestClock>;

const bound = `at most ${MAX_AHEAD_DAYS.toLocaleString('en-US')} days (10 years) past real time in all`;

export const TestClockAdvance = Type.Object(
  {
    to: Type.Optional({
      ...Instant,
      description: `Move the test clock to this instant: not in the past, ${bound}.`,
    }),
    days: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_AHEAD_DAYS,
        description: `Move it this many days ahead, ${bound}.`,
      }),
    ),
    hours: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_AHEAD_DAYS * 24,
        description: `Move it this many hours ahead, ${bound}.`,
      }),
    ),
  },
  {
    title: 'TestClockAdvance',
    examples: [{ days: 30 }],
    additionalProperties: false,
    description: 'Exactly one of `to`, `days` and `hours`.',
  },
);
export type TestClockAdvance = Static<typeof TestClockAdvance>;

export const TestClockAdvanced = Type.Object(
  {
    ...TestClock.properties,
    previous: { ...Instant, description: 'The test-mode time before the advance.' },
    ran: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
      description:
        'For each kind of time-driven work, how many records it handled before the answer (with 202, what ran ' +
        'so far; the worker does the rest).',
    }),
  },
  {
    title: 'TestClockAdvanced',
    examples: [
      {
        now: '2026-12-23T09:00:00.000Z',
        offsetMs: 2592000000,
        status: 'ready',
        previous: '2026-11-23T09:00:00.000Z',
        ran: { 'idempotency.expire': 3 },
      },
    ],
  },
);
export type TestClockAdvanced = Static<typeof TestClockAdvanced>;
