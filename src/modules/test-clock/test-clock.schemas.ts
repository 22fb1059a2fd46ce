import { type Static, Type } from 'typebox';
import { Instant } from '../shared.schemas.js';

export const TestClock = Type.Object(
  {
    now: { ...Instant, description: "The workspace's test-mode time." },
    offsetMs: Type.Integer({ description: 'How far the test clock is ahead of real time, in milliseconds.' }),
  },
  { title: 'TestClock', examples: [{ now: '2026-12-23T09:00:00.000Z', offsetMs: 2592000000 }] },
);
export type TestClock = Static<typeof TestClock>;

export const TestClockAdvance = Type.Object(
  {
    to: Type.Optional({ ...Instant, description: 'Move the test clock to this instant (not in the past).' }),
    days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3650, description: 'Move it this many days ahead.' }),
    ),
    hours: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 87_600, description: 'Move it this many hours ahead.' }),
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
      description: 'For each kind of time-driven work, how many records it handled on the way.',
    }),
  },
  {
    title: 'TestClockAdvanced',
    examples: [
      {
        now: '2026-12-23T09:00:00.000Z',
        offsetMs: 2592000000,
        previous: '2026-11-23T09:00:00.000Z',
        ran: { 'idempotency.expire': 3 },
      },
    ],
  },
);
export type TestClockAdvanced = Static<typeof TestClockAdvanced>;
