import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { failureCodeDescription } from '../../ports/failure-tables.js';
import { FAILURE_CODES } from '../../ports/payment-providers.js';
import { Instant, Nullable } from '../shared.schemas.js';
import { ATTEMPT_STATUSES, BLOCKED_REASONS, NO_RETRY_REASONS } from './attempts.table.js';

const attemptExample = {
  id: 'att_01JD7ZE5F6G7H8J9K0M1N2P3Q4',
  schedule_id: 'sch_01JD7ZA1B2C3D4E5F6G7H8J9K0',
  obligation_id: 'obl_01JD7ZA1B2C3D4E5F6G7H8J9K1',
  mandate_id: 'man_01JD7ZC3D4E5F6G7H8J9K0M1N2',
  provider: 'gatewayA',
  amount: 7500000,
  currency: 'NGN',
  status: 'failed',
  scheduled_for: '2027-01-31T00:00:00.000Z',
  attempted_at: '2027-01-31T00:01:00.000Z',
  attempt_number: 1,
  failure_code: 'insufficient_funds',
  failure_message: 'The account has too little money.',
  next_retry_at: '2027-02-01T00:01:00.000Z',
  no_retry_reason: null,
  blocked_reason: null,
  payment_id: null,
  provider_reference: 'T685312322670591',
  provider_failure_code: 'Insufficient Funds',
  created_at: '2027-01-31T00:00:30.000Z',
};

export const Attempt = Type.Object(
  {
    id: Type.String(),
    schedule_id: Type.String(),
    obligation_id: Type.String(),
    mandate_id: Nullable(Type.String()),
    provider: Nullable(Type.String()),
    amount: Type.Integer({ description: 'What the obligation still owed when the attempt was made.' }),
    currency: Type.String(),
    status: Type.Enum(ATTEMPT_STATUSES, {
      description:
        'scheduled, blocked (see blocked_reason; it runs once the cause is gone), processing, succeeded, failed, cancelled (the obligation was settled or the schedule cancelled first).',
    }),
    scheduled_for: Instant,
    attempted_at: Nullable(Instant),
    attempt_number: Type.Integer({
      minimum: 1,
      maximum: 4,
      description: '1 for the first try; retries 2 to 4.',
    }),
    failure_code: Nullable(Type.Enum(FAILURE_CODES, { description: failureCodeDescription() })),
    failure_message: Nullable(Type.String()),
    next_retry_at: Nullable({
      ...Instant,
      description: 'Set on a failure that will be retried: 1, 3 and 7 days after the first failure.',
    }),
    no_retry_reason: Nullable(
      Type.Enum(NO_RETRY_REASONS, { description: 'Set on a failure that will not be retried.' }),
    ),
    blocked_reason: Nullable(
      Type.Enum(BLOCKED_REASONS, {
        description:
          'no_active_mandate: the schedule has no active mandate; provider_approval_required: live mode, and the provider has not approved automatic debit for the workspace (paytrack provider set --approved); promise_open: an open promise to pay covers the obligation; dispute_open: an open dispute covers it. A blocked attempt runs once its cause is gone.',
      }),
    ),
    payment_id: Nullable(Type.String({ description: 'The payment a success recorded.' })),
    provider_reference: Nullable(
      Type.String({ description: "The provider's reference of the charge, once it made one." }),
    ),
    provider_failure_code: Nullable(
      Type.String({
        description:
          "The provider's own decline or error code, as it sent it, beside the normalised failure_code (the table is in failure_code's description).",
      }),
    ),
    created_at: Instant,
  },
  { title: 'Attempt', examples: [attemptExample] },
);
export type Attempt = Static<typeof Attempt>;

export const AttemptListQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(Type.Enum(ATTEMPT_STATUSES)),
    schedule_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    obligation_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type AttemptListQuery = Static<typeof AttemptListQuery>;
