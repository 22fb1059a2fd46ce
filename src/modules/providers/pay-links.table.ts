import type { Mode } from '../../lib/tenant.js';

/** A pay link's status as the API shows it: `expired` is read from `expires_at` on the tenant's clock. */
export const PAY_LINK_STATUSES = ['active', 'paid', 'expired', 'revoked'] as const;
export type PayLinkStatus = (typeof PAY_LINK_STATUSES)[number];

/** What a link keeps: `active` until it is paid or revoked; whether it has expired is a matter of time. */
export type StoredPayLinkStatus = Exclude<PayLinkStatus, 'expired'>;

/** A plan's amount offered to its payer at `PUBLIC_URL/pay/<token>`. */
export interface PayLinksTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  track_id: string;
  customer_id: string;
  /** SHA-256 (hex) of the token in the link's address; the token itself is never stored. */
  token_hash: string;
  /** What the page offers. */
  amount: number;
  /** The least the payer may pay: `amount` when the amount is fixed; below it, any amount up to the balance. */
  min_amount: number;
  currency: string;
  status: StoredPayLinkStatus;
  expires_at: string;
  /** The checkout that paid it, its provider and the provider's reference of it. */
  checkout_id: string | null;
  checkout_provider: string | null;
  checkout_provider_reference: string | null;
  /** The payment its checkout recorded, and what it was. */
  payment_id: string | null;
  amount_paid: number | null;
  created_at: string;
  paid_at: string | null;
  revoked_at: string | null;
}

/** A checkout started from a pay link's page (one per press of Pay), by the checkout id providers report. */
export interface PayLinkCheckoutsTable {
  checkout_id: string;
  pay_link_id: string;
  workspace_id: string;
  mode: Mode;
  /** What the payer chose to pay. */
  amount: number;
  currency: string;
  provider: string;
  provider_reference: string | null;
  created_at: string;
  /** When its money was recorded (once), and the payment. */
  completed_at: string | null;
  payment_id: string | null;
}

declare module '../../db/schema.js' {
  interface Database {
    pay_links: PayLinksTable;
    pay_link_checkouts: PayLinkCheckoutsTable;
  }
}
