import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { Amount, CalendarDate, Instant, Nullable } from '../shared.schemas.js';
import { PROMISE_SOURCES, PROMISE_STATUSES } from './collections.table.js';

/** How far ahead a promise's date may be, in days from today in the workspace's zone. */
export const PROMISE_MAX_DAYS_AHEAD = 366;
export const PROMISE_NOTE_MAX = 500;

export const PromiseCreate = Type.Object(
  {
    trackId: Type.String({ minLength: 1, maxLength: 64, description: 'The plan (trk_) the promise is on.' }),
    obligationId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'One open obligation (obl_) of that plan the promise covers; omitted: the promise covers the whole plan.',
      }),
    ),
    amount: {
      ...Amount,
      description:
        "What the payer promises to pay, at most the plan's balance (and, with obligationId, at most what that obligation still asks).",
    },
    date: {
      ...CalendarDate,
      description: `The day (YYYY-MM-DD, the workspace's zone) by the end of which it is to be paid: today or later, at most ${PROMISE_MAX_DAYS_AHEAD} days ahead.`,
    },
    note: Type.Optional(
      Type.String({ maxLength: PROMISE_NOTE_MAX, description: 'What was agreed, in words.' }),
    ),
  },
  {
    title: 'PromiseCreate',
    examples: [
      {
        trackId: 'trk_01JD7Z8X1Y2Z3A4B5C6D7E8F9G',
        amount: 2000000,
        date: '2026-12-04',
        note: 'Called on Tuesday; salary comes on Friday.',
      },
    ],
    additionalProperties: false,
  },
);
export type PromiseCreate = Static<typeof PromiseCreate>;

const promiseExample = {
  id: 'prm_01JD7ZF2G3H4J5K6M7N8P9Q0R1',
  trackId: 'trk_01JD7Z8X1Y2Z3A4B5C6D7E8F9G',
  obligationId: null,
  amount: 2000000,
  currency: 'NGN',
  date: '2026-12-04',
  note: 'Called on Tuesday; salary comes on Friday.',
  source: 'business',
  status: 'open',
  createdAt: '2026-11-27T10:15:00.000Z',
  resolvedAt: null,
};

export const PromiseToPay = Type.Object(
  {
    id: Type.String({ description: 'prm_' }),
    trackId: Type.String(),
    obligationId: Nullable(Type.String({ description: 'The obligation it covers; null: the whole plan.' })),
    amount: Amount,
    currency: Type.String({ description: "The plan's currency." }),
    date: { ...CalendarDate, description: "The day it is to be paid by (the workspace's zone)." },
    note: Nullable(Type.String()),
    source: Type.Enum(PROMISE_SOURCES, {
      description: "business: recorded through the API or the console; payer: made on the customer's page.",
    }),
    status: Type.Enum(PROMISE_STATUSES, {
      description:
        "open: while it is, the schedule's automatic reminders for what it covers are skipped (promise_open) and its automatic attempts blocked (promise_open). kept: payments on the plan recorded since it was made (not reversed) reached its amount, or what it covers was paid off. broken: not kept by the end of its date (from the start of the next day, on the tenant clock): chasing resumes, with one reminder that says so. cancelled: POST /promises/{id}/cancel. Only open changes.",
    }),
    createdAt: Instant,
    resolvedAt: Nullable({ ...Instant, description: 'When it became kept, broken or cancelled.' }),
  },
  { title: 'PromiseToPay', examples: [promiseExample] },
);
export type PromiseToPay = Static<typeof PromiseToPay>;

export const PromiseListQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(Type.Enum(PROMISE_STATUSES)),
    trackId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type PromiseListQuery = Static<typeof PromiseListQuery>;
