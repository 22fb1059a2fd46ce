import type { Mode } from '../../lib/tenant.js';

export const MANDATE_STATUSES = ['pending', 'active', 'replaced', 'revoked', 'failed', 'expired'] as const;
export type MandateStatus = (typeof MANDATE_STATUSES)[number];

/** What the payer's approval rests on. */
export interface ConsentEvidence {
  ip: string;
  user_agent: string | null;
  /** The words the page showed, and their SHA-256 (hex). */
  text_shown: string;
  text_sha256: string;
}

export interface MandatesTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  payer_type: 'customer';
  payer_id: string;
  provider: string;
  schedule_id: string | null;
  status: MandateStatus;
  /** SHA-256 of the one-time token in the consent URL; the token itself is never stored. */
  consent_token_hash: string;
  /** SHA-256 of the form token of the consent page last shown: a post without it is refused. */
  form_token_hash: string | null;
  consent_expires_at: string;
  consented_at: string | null;
  /** JSON `ConsentEvidence`, once the payer approved. */
  consent: string | null;
  /** The mandate's id at its provider, once registered there (on activation). */
  provider_mandate_id: string | null;
  /** The provider's reference of the hosted authorization the payer was sent to (a session, a reference). */
  authorization_reference: string | null;
  /** The provider's hosted authorization page, kept so that an abandoned authorization can be resumed. */
  authorization_url: string | null;
  /** What charges are made with, once the provider confirmed: an authorization code, a payment method id. */
  provider_reference: string | null;
  /** The payer at the provider (a customer code or id). */
  customer_reference: string | null;
  /** The e-mail the provider's authorization was made for: Paystack charges it under that address only. */
  payer_email: string | null;
  payment_method_type: string | null;
  payment_method_bank: string | null;
  payment_method_last4: string | null;
  activated_at: string | null;
  revoked_at: string | null;
  revocation_reason: string | null;
  /** When another mandate of the schedule became active in its place, and which (at most one is active). */
  replaced_at: string | null;
  replaced_by: string | null;
  failure_reason: string | null;
  created_at: string;
  updated_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    mandates: MandatesTable;
  }
}
