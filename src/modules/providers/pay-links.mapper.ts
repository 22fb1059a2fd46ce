import type { PayLink } from './pay-links.schemas.js';
import type { PayLinkStatus, PayLinksTable } from './pay-links.table.js';

/** A link's status at `now` (stored form): an active link past its time is expired from that instant. */
export function statusAt(row: Pick<PayLinksTable, 'status' | 'expires_at'>, now: string): PayLinkStatus {
  return row.status === 'active' && row.expires_at <= now ? 'expired' : row.status;
}

/** The link as the API shows it at `now`; its `url` only when just made (the token is not kept). */
export function toApi(row: PayLinksTable, now: string, url: string | null = null): PayLink {
  return {
    id: row.id,
    trackId: row.track_id,
    customerId: row.customer_id,
    url,
    amount: row.amount,
    minAmount: row.min_amount,
    currency: row.currency,
    status: statusAt(row, now),
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    paidAt: row.paid_at,
    amountPaid: row.amount_paid,
    paymentId: row.payment_id,
    revokedAt: row.revoked_at,
  };
}
