import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { NOT_BLANK } from '../../http/validation.js';
import { Amount, Instant, Nullable } from '../shared.schemas.js';
import { DISPUTE_REASONS, DISPUTE_STATUSES } from './collections.table.js';

const Note = Type.String({ minLength: 1, maxLength: 500, pattern: NOT_BLANK });
const Id = Type.String({ minLength: 1, maxLength: 64 });
export const ACTION_TYPES = ['adjust', 'write_off', 'reverse'] as const;
export const OUTCOMES = ['accepted', 'rejected'] as const;

export const DisputeCreate = Type.Object(
  {
    trackId: Type.Optional({
      ...Id,
      description: 'The plan disputed as a whole. Exactly one of trackId, obligationId, paymentId.',
    }),
    obligationId: Type.Optional({ ...Id, description: 'The obligation (instalment or fee) disputed.' }),
    paymentId: Type.Optional({ ...Id, description: 'The payment disputed.' }),
    reason: Type.Enum(DISPUTE_REASONS),
    note: Type.Optional({ ...Note, description: 'What the customer says, in a few words.' }),
  },
  {
    title: 'DisputeCreate',
    examples: [
      {
        obligationId: 'obl_01JD7ZC3D5E7F9G1H3J5K7M9N1',
        reason: 'not_received',
        note: 'Says the fridge was never delivered',
      },
    ],
    additionalProperties: false,
  },
);
export type DisputeCreate = Static<typeof DisputeCreate>;

export const DisputeResolve = Type.Object(
  {
    outcome: Type.Enum(OUTCOMES),
    action: Type.Optional(
      Type.Object(
        {
          type: Type.Enum(ACTION_TYPES),
          amount: Type.Optional(Amount),
        },
        {
          additionalProperties: false,
          description:
            "accepted only. adjust: lower the plan's amount by amount (required, at most the balance). write_off: write off amount (default: the obligation's remaining ask for an obligation dispute, the balance otherwise). reverse: reverse the disputed payment (payment disputes only).",
        },
      ),
    ),
    note: Type.Optional(Note),
  },
  {
    title: 'DisputeResolve',
    examples: [{ outcome: 'accepted', action: { type: 'write_off' }, note: 'Delivery never happened' }],
    additionalProperties: false,
  },
);
export type DisputeResolve = Static<typeof DisputeResolve>;

const disputeExample = {
  id: 'dsp_01JD7ZJ5L7N9Q1S3U5W7Y9A1C3',
  trackId: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C',
  obligationId: 'obl_01JD7ZC3D5E7F9G1H3J5K7M9N1',
  paymentId: null,
  customerId: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B',
  reason: 'not_received',
  note: 'Says the fridge was never delivered',
  status: 'accepted',
  resolution: {
    outcome: 'accepted',
    action: {
      type: 'write_off',
      amount: 7500000,
      writeOffId: 'wof_01JD7ZH4K6M8P0R2T4V6X8Z0B2',
      paymentId: null,
    },
    note: 'Delivery never happened',
  },
  createdAt: '2026-11-20T14:03:00.000Z',
  resolvedAt: '2026-11-22T10:00:00.000Z',
};

export const Dispute = Type.Object(
  {
    id: Type.String({ description: 'dsp_' }),
    trackId: Nullable(
      Type.String({
        description: "The plan it concerns: the one disputed, or the obligation's or payment's.",
      }),
    ),
    obligationId: Nullable(Type.String()),
    paymentId: Nullable(Type.String()),
    customerId: Nullable(Type.String()),
    reason: Type.Enum(DISPUTE_REASONS),
    note: Nullable(Type.String()),
    status: Type.Enum(DISPUTE_STATUSES, {
      description:
        'open: reminders (all of them), attempts and late fees on what it covers are held back (an obligation dispute covers that obligation; a plan or payment dispute every obligation of the plan). accepted or rejected: resolved; chasing resumes.',
    }),
    resolution: Nullable(
      Type.Object({
        outcome: Type.Enum(OUTCOMES),
        action: Nullable(
          Type.Object({
            type: Type.Enum(ACTION_TYPES),
            amount: Type.Integer({ description: 'What the plan gave up or the payment reversed was.' }),
            writeOffId: Nullable(Type.String({ description: 'write_off: the write-off (wof_).' })),
            paymentId: Nullable(Type.String({ description: 'reverse: the payment reversed.' })),
          }),
        ),
        note: Nullable(Type.String()),
      }),
    ),
    createdAt: Instant,
    resolvedAt: Nullable(Instant),
  },
  { title: 'Dispute', examples: [disputeExample] },
);
export type Dispute = Static<typeof Dispute>;
export type DisputeAction = NonNullable<NonNullable<Dispute['resolution']>['action']>;

export const DisputeListQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(Type.Enum(DISPUTE_STATUSES)),
    trackId: Type.Optional(Id),
  },
  { additionalProperties: false },
);
export type DisputeListQuery = Static<typeof DisputeListQuery>;
