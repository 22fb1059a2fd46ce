import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { Amount, Instant, Nullable } from '../shared.schemas.js';
import { PAY_LINK_STATUSES } from './pay-links.table.js';

/** How long a link works when the request says nothing, and at most. */
export const PAY_LINK_DEFAULT_DAYS = 30;
export const PAY_LINK_MAX_DAYS = 90;

const expiry = {
  ...Instant,
  description: `When the link stops working: after now, at most ${PAY_LINK_MAX_DAYS} days ahead; ${PAY_LINK_DEFAULT_DAYS} days from now when omitted. Written expires_at (as the payer-side decisions write it) or expiresAt (this family's style), not both.`,
};

export const PayLinkCreate = Type.Object(
  {
    amount: Type.Optional({
      ...Amount,
      description:
        "What the link asks, at most the plan's balance. Default: what is due now (what the plan's open obligations due up to today still ask), else the next instalment, else the balance.",
    }),
    minAmount: Type.Optional({
      ...Amount,
      description:
        "The least the payer may pay, at most amount. Omitted (or equal to amount): the amount is fixed. Below amount: the payer may pay any amount from minAmount up to the plan's balance, amount being the one offered.",
    }),
    expires_at: Type.Optional(expiry),
    expiresAt: Type.Optional(expiry),
  },
  {
    title: 'PayLinkCreate',
    examples: [{ amount: 1500000, minAmount: 500000, expires_at: '2026-12-20T18:00:00Z' }],
    additionalProperties: false,
  },
);
export type PayLinkCreate = Static<typeof PayLinkCreate>;

const payLinkExample = {
  id: 'pl_01JD7ZF2G3H4J5K6M7N8P9Q0R1',
  trackId: 'trk_01JD7Z8X1Y2Z3A4B5C6D7E8F9G',
  customerId: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B',
  url: 'https://pay.example.com/pay/q8Zk3T1m4X8v2B6n0R5c7W1y3P9s2L4d',
  amount: 1500000,
  minAmount: 500000,
  currency: 'NGN',
  status: 'active',
  expiresAt: '2026-12-20T18:00:00.000Z',
  createdAt: '2026-11-20T14:03:00.000Z',
  paidAt: null,
  amountPaid: null,
  paymentId: null,
  revokedAt: null,
};

export const PayLink = Type.Object(
  {
    id: Type.String({ description: 'pl_' }),
    trackId: Type.String(),
    customerId: Type.String({ description: "The plan's customer: the payer the page speaks to." }),
    url: Nullable(
      Type.String({
        description:
          "PUBLIC_URL/pay/<token>, to share with the payer (by WhatsApp, say): in the create response only, since only the token's hash is stored; null when read again. The page (no key, no script, works on a phone) shows the business (name, brand colour, contact), what is paid for (the plan's title), the payer's first name and the amount, and pays through the workspace's checkout provider (in test mode, the simulator's page). It shows nothing of another customer, cannot be framed, refuses cross-site posts and is rate-limited per address. A paid link says so, with the amount and date; a revoked or expired one says so (410) and takes nothing.",
      }),
    ),
    amount: { ...Amount, description: 'What the page offers.' },
    minAmount: {
      ...Amount,
      description:
        "The least the payer may pay. Equal to amount: the amount is fixed. Below it: any amount from minAmount to the plan's balance at the time of paying.",
    },
    currency: Type.String({ description: "The plan's currency." }),
    status: Type.Enum(PAY_LINK_STATUSES, {
      description:
        'active (takes a payment), paid (its checkout recorded the payment, paymentId), expired (expiresAt passed unpaid: from that instant, on the tenant clock), revoked (DELETE /pay-links/{id}). Paid, expired and revoked are final. Money a provider reports for a checkout begun while the link was active is always recorded on the plan: it makes an active link paid, however late it comes; a revoked link stays revoked.',
    }),
    expiresAt: Instant,
    createdAt: Instant,
    paidAt: Nullable(Instant),
    amountPaid: Nullable({
      ...Amount,
      description: 'What the payment that paid it was: the payer may have chosen it, within the bounds.',
    }),
    paymentId: Nullable(
      Type.String({
        description:
          "The payment (pay_) recorded for it: on the plan as any payment is (allocated to its open obligations oldest first; what exceeds the balance is the customer's credit).",
      }),
    ),
    revokedAt: Nullable(Instant),
  },
  { title: 'PayLink', examples: [payLinkExample] },
);
export type PayLink = Static<typeof PayLink>;

export const PayLinkListQuery = Type.Object(
  { ...PaginationQuery, status: Type.Optional(Type.Enum(PAY_LINK_STATUSES)) },
  { additionalProperties: false },
);
export type PayLinkListQuery = Static<typeof PayLinkListQuery>;
