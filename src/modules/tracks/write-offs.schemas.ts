import { type Static, Type } from 'typebox';
import { NOT_BLANK } from '../../http/validation.js';
import { Amount, Instant, Nullable } from '../shared.schemas.js';
import { Track } from './tracks.schemas.js';

export const WriteOffCreate = Type.Object(
  {
    amount: Type.Optional({
      ...Amount,
      description: "What to give up of the plan's balance, at most the balance; default: all of it.",
    }),
    reason: Type.String({
      minLength: 1,
      maxLength: 500,
      pattern: NOT_BLANK,
      description: 'Why it is written off; kept on the ledger entry and in the event.',
    }),
  },
  {
    title: 'WriteOffCreate',
    examples: [{ amount: 1500000, reason: 'Customer emigrated; not worth pursuing' }],
    additionalProperties: false,
  },
);
export type WriteOffCreate = Static<typeof WriteOffCreate>;

export const WriteOff = Type.Object(
  {
    id: Type.String({ description: 'wof_' }),
    amount: Type.Integer(),
    reason: Type.String(),
    createdAt: Instant,
    reversedAt: Nullable(Instant),
  },
  {
    title: 'WriteOff',
    examples: [
      {
        id: 'wof_01JD7ZH4K6M8P0R2T4V6X8Z0B2',
        amount: 1500000,
        reason: 'Customer emigrated; not worth pursuing',
        createdAt: '2026-11-20T14:03:00.000Z',
        reversedAt: null,
      },
    ],
  },
);

/** `track.written_off` and `track.write_off_reversed`: the plan as it now is, with the write-off. */
export const TrackWriteOffEvent = Type.Object(
  { ...Track.properties, writeOff: WriteOff },
  {
    title: 'TrackWriteOffEvent',
    examples: [
      {
        id: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C',
        customerId: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B',
        title: 'Samsung fridge, 6 monthly instalments',
        amount: 43500000,
        balance: 28500000,
        amountPaid: 15000000,
        currency: 'NGN',
        installments: 6,
        status: 'active',
        dueDate: '2027-05-02',
        metadata: { invoice: 'INV-2026-0412' },
        createdAt: '2026-11-02T09:15:00.000Z',
        updatedAt: '2026-11-20T14:03:00.000Z',
        archivedAt: null,
        writeOff: {
          id: 'wof_01JD7ZH4K6M8P0R2T4V6X8Z0B2',
          amount: 1500000,
          reason: 'Customer emigrated; not worth pursuing',
          createdAt: '2026-11-20T14:03:00.000Z',
          reversedAt: null,
        },
      },
    ],
  },
);
export type TrackWriteOffEvent = Static<typeof TrackWriteOffEvent>;
