import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { Instant, Nullable } from '../shared.schemas.js';
import { MANDATE_STATUSES } from './mandates.table.js';

const Id = Type.String({ minLength: 1, maxLength: 64 });

export const MandateCreate = Type.Object(
  {
    payer_type: Type.Enum(['customer'], { description: 'Who pays: a customer of the workspace.' }),
    payer_id: Type.Optional(
      Nullable({
        ...Id,
        description: "The paying customer (cus_); when null, the customer of the schedule's plan.",
      }),
    ),
    provider: Type.String({
      minLength: 1,
      maxLength: 40,
      pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$',
      description:
        'The payment provider that will debit the payer, by the name you use for it (for example gatewayA).',
    }),
    schedule_id: Type.Optional(
      Nullable({ ...Id, description: 'The collection schedule (sch_) it authorises.' }),
    ),
  },
  {
    title: 'MandateCreate',
    examples: [
      {
        payer_type: 'customer',
        payer_id: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B',
        provider: 'gatewayA',
        schedule_id: 'sch_01JD7ZA1B2C3D4E5F6G7H8J9K0',
      },
    ],
    additionalProperties: false,
  },
);
export type MandateCreate = Static<typeof MandateCreate>;

export const MandateRevoke = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Why it is revoked.' })) },
  {
    title: 'MandateRevoke',
    examples: [{ reason: 'Customer asked to stop direct debit' }],
    additionalProperties: false,
  },
);
export type MandateRevoke = Static<typeof MandateRevoke>;

const Consent = Type.Object(
  {
    ip: Type.String(),
    user_agent: Nullable(Type.String()),
    text_shown: Type.String({
      description:
        'The agreement the consent page showed the payer, word for word: who may collect what from whom, for which plan, through which provider (by its display name), each amount, how many, the total and the first and last dates (or, for a schedule with no end and no plan, the amount, how often and from when). An answer counts only for the words its page showed: a page whose figures changed before the payer answered is refused and must be opened again.',
    }),
    text_sha256: Type.String({ description: 'SHA-256 (hex) of text_shown.' }),
  },
  { title: 'MandateConsent' },
);

const PaymentMethod = Type.Object(
  {
    type: Type.String({ description: 'card, direct_debit, sepa_debit, bacs_debit, us_bank_account, …' }),
    bank: Nullable(Type.String({ description: "The bank (or a card's brand)." })),
    last4: Nullable(Type.String({ description: 'The last four digits of the account or card.' })),
  },
  {
    title: 'MandatePaymentMethod',
    description:
      "The payer's payment method as the provider confirmed it: a safe summary, never a full number.",
  },
);

const mandateExample = {
  id: 'man_01JD7ZC3D4E5F6G7H8J9K0M1N2',
  payer_type: 'customer',
  payer_id: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B',
  provider: 'gatewayA',
  schedule_id: 'sch_01JD7ZA1B2C3D4E5F6G7H8J9K0',
  status: 'pending',
  consent_url: 'https://pay.example.com/consent/ct_Zk3q9T1m4X8v2B6n0R5c7W1y3P9s2L4d',
  consent_expires_at: '2026-11-21T14:03:00.000Z',
  consented_at: null,
  consent: null,
  activated_at: null,
  revoked_at: null,
  revocation_reason: null,
  replaced_at: null,
  replaced_by: null,
  failure_reason: null,
  provider_reference: null,
  payment_method: null,
  created_at: '2026-11-20T14:03:00.000Z',
  updated_at: '2026-11-20T14:03:00.000Z',
};

export const Mandate = Type.Object(
  {
    id: Type.String(),
    payer_type: Type.Enum(['customer']),
    payer_id: Type.String(),
    provider: Type.String(),
    schedule_id: Nullable(
      Type.String({
        description:
          'The collection schedule it authorises. A schedule has at most one active mandate: the one approved last.',
      }),
    ),
    status: Type.Enum(MANDATE_STATUSES, {
      description:
        "pending (waiting for the payer, or consented in live mode until provider approval is configured), active, replaced (another mandate of the same schedule became active in its place: a schedule has at most one active mandate, and a new approval replaces the old one, with a mandate.replaced event and ledger entry; see replaced_at and replaced_by), revoked (no collection runs on it again, and the schedule's attempts wait blocked with no_active_mandate until a new mandate is approved), failed (the payer declined), expired (no answer within 24 hours). Replaced, revoked, failed and expired are final.",
    }),
    consent_url: Nullable(
      Type.String({
        description:
          "The page where the payer approves or declines: in the create response only (the token is stored hashed), and it works once. It shows the agreement in plain words (see consent.text_shown), each collection's date and amount, the business's name, support e-mail and phone and brand colour (account settings), times in the workspace's time zone; a used or expired link names the business and how to reach it.",
      }),
    ),
    consent_expires_at: Instant,
    consented_at: Nullable(Instant),
    consent: Nullable(Consent),
    activated_at: Nullable(Instant),
    revoked_at: Nullable(Instant),
    revocation_reason: Nullable(Type.String()),
    replaced_at: Nullable({
      ...Instant,
      description: 'When another mandate of the same schedule became active in its place (status replaced).',
    }),
    replaced_by: Nullable(
      Type.String({
        description: 'The mandate (man_) that replaced it: the active one of its schedule then.',
      }),
    ),
    failure_reason: Nullable(Type.String()),
    provider_reference: Nullable(
      Type.String({
        description:
          "The provider's reference of the authorization charges are made with (Paystack's authorization code, Stripe's payment method), once the provider confirmed it.",
      }),
    ),
    payment_method: Nullable(PaymentMethod),
    created_at: Instant,
    updated_at: Instant,
  },
  { title: 'Mandate', examples: [mandateExample] },
);
export type Mandate = Static<typeof Mandate>;

export const MandateListQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(Type.Enum(MANDATE_STATUSES)),
    payer_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'Only the mandates of this customer.' }),
    ),
  },
  { additionalProperties: false },
);
export type MandateListQuery = Static<typeof MandateListQuery>;
