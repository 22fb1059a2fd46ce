import type { FailureCode } from '../payment-providers.js';

export interface StripeFailure {
  code: FailureCode;
  retryable: boolean;
}

const fail = (code: FailureCode, retryable: boolean): StripeFailure => ({ code, retryable });

/**
 * Stripe's `decline_code` (docs.stripe.com/declines/codes), its bank-debit failure codes
 * (docs.stripe.com/declines/network-codes) and its API error `code` (docs.stripe.com/error-codes), in our words.
 * A charge's error is looked up by `decline_code` first, then by `code`. Retryable only where the docs' next step is
 * to try again later as it is; a payer who must act (new card, new mandate, authentication) is not retried.
 */
export const STRIPE_FAILURES: Readonly<Record<string, StripeFailure>> = {
  // Money: "The card has insufficient funds" / the bank account "doesn't have the necessary funds": retry later.
  insufficient_funds: fail('insufficient_funds', true),
  card_velocity_exceeded: fail('insufficient_funds', true),
  withdrawal_count_limit_exceeded: fail('insufficient_funds', true),
  // The issuer or Stripe could not process it now: "try again".
  processing_error: fail('provider_unavailable', true),
  try_again_later: fail('provider_unavailable', true),
  issuer_not_available: fail('provider_unavailable', true),
  reenter_transaction: fail('provider_unavailable', true),
  // The payer must authenticate (3-D Secure): off-session, only they can.
  authentication_required: fail('authentication_required', false),
  payment_intent_authentication_failure: fail('authentication_required', false),
  // The card or account can no longer be used: a new payment method is needed.
  expired_card: fail('account_closed', false),
  lost_card: fail('account_closed', false),
  stolen_card: fail('account_closed', false),
  pickup_card: fail('account_closed', false),
  account_closed: fail('account_closed', false),
  bank_account_closed: fail('account_closed', false),
  bank_account_unusable: fail('account_closed', false),
  bank_account_frozen: fail('account_closed', false),
  bank_account_invalid_details: fail('account_closed', false),
  recipient_deceased: fail('account_closed', false),
  invalid_account: fail('account_closed', false),
  // No authorised mandate ("Collect a new mandate"): the payer withdrew it or the bank refuses debits.
  debit_not_authorized: fail('mandate_revoked', false),
  bank_account_restricted: fail('mandate_revoked', false),
  revocation_of_authorization: fail('mandate_revoked', false),
  revocation_of_all_authorizations: fail('mandate_revoked', false),
  stop_payment_order: fail('mandate_revoked', false),
  // Refusals with no reason to expect a different answer on retry.
  card_declined: fail('declined', false),
  generic_decline: fail('declined', false),
  do_not_honor: fail('declined', false),
  do_not_try_again: fail('declined', false),
  fraudulent: fail('declined', false),
  restricted_card: fail('declined', false),
  transaction_not_allowed: fail('declined', false),
  card_not_supported: fail('declined', false),
  currency_not_supported: fail('declined', false),
  incorrect_number: fail('declined', false),
  invalid_number: fail('declined', false),
  incorrect_cvc: fail('declined', false),
  invalid_cvc: fail('declined', false),
  invalid_expiry_month: fail('declined', false),
  invalid_expiry_year: fail('declined', false),
  security_violation: fail('declined', false),
  service_not_allowed: fail('declined', false),
  amount_too_small: fail('declined', false),
  amount_too_large: fail('declined', false),
};

/**
 * The mapping for an error's `decline_code` or `code`; a refusal we do not know is a plain decline. The raw code
 * kept is the bank's `decline_code` whenever there is one (it says more than `card_declined`).
 */
export function stripeFailure(
  declineCode: string | null | undefined,
  code: string | null | undefined,
): StripeFailure & { providerCode: string } {
  const providerCode = declineCode || code || 'unknown';
  for (const candidate of [declineCode, code]) {
    const found =
      candidate && Object.hasOwn(STRIPE_FAILURES, candidate) ? STRIPE_FAILURES[candidate] : undefined;
    if (candidate && found) return { ...found, providerCode };
  }
  return { ...fail('declined', false), providerCode };
}
