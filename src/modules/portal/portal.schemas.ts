import { type Static, Type } from 'typebox';
import { PaginationQuery } from '../../http/envelope.js';
import { Instant, Nullable } from '../shared.schemas.js';

/** How long a customer page link works when the request does not say, and the longest it may. */
export const DEFAULT_LINK_DAYS = 30;
export const MAX_LINK_DAYS = 365;

export const PortalLinkCreate = Type.Object(
  {
    expires_at: Type.Optional({
      ...Instant,
      description: `When the link stops working: in the future, at most ${MAX_LINK_DAYS} days ahead. Defaults to ${DEFAULT_LINK_DAYS} days from now.`,
    }),
    send: Type.Optional(
      Type.Enum(['sms', 'whatsapp', 'email'], {
        description:
          'Also send the link to the customer on this channel, as a reminder of the business (listed with the reminders, with its log).',
      }),
    ),
  },
  { additionalProperties: false, title: 'PortalLinkCreate', examples: [{ send: 'whatsapp' }] },
);
export type PortalLinkCreate = Static<typeof PortalLinkCreate>;

export const PortalLink = Type.Object(
  {
    id: Type.String({ description: 'cpl_…' }),
    customerId: Type.String(),
    url: Nullable(
      Type.String({
        description:
          'The page, `PUBLIC_URL/c/<token>`: in the answer that creates the link only (only its hash is kept), null after.',
      }),
    ),
    status: Type.Enum(['active', 'expired', 'revoked'], {
      description: 'active until expiresAt (by the workspace clock) unless revoked first.',
    }),
    expiresAt: Instant,
    revokedAt: Nullable(Instant),
    lastOpenedAt: Nullable({ ...Instant, description: 'When the page was last opened (to the minute).' }),
    reminderId: Nullable(
      Type.String({ description: 'The reminder that sent the link (`send`), when one did.' }),
    ),
    createdAt: Instant,
  },
  {
    title: 'PortalLink',
    examples: [
      {
        id: 'cpl_01JD7ZC3D4E5F6G7H8J9K0M1N2',
        customerId: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B',
        url: 'https://pay.example.com/c/cp_Qm9vdHN0cmFwLXRva2VuLWV4YW1wbGUtMDAwMDAwMDAw',
        status: 'active',
        expiresAt: '2026-12-27T09:00:00.000Z',
        revokedAt: null,
        lastOpenedAt: null,
        reminderId: null,
        createdAt: '2026-11-27T09:00:00.000Z',
      },
    ],
    description:
      "A link to the customer's own page, with no login: their plans with balances, obligations, payments with receipts, the statement (and its PDF), pay now for what is due, and their mandates, which they can revoke.",
  },
);
export type PortalLink = Static<typeof PortalLink>;

export const PortalLinkListQuery = Type.Object({ ...PaginationQuery }, { additionalProperties: false });
export type PortalLinkListQuery = Static<typeof PortalLinkListQuery>;
