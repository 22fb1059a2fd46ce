import type { FailureCode } from '../payment-providers.js';

export interface PaystackFailure {
  code: FailureCode;
  retryable: boolean;
}

const fail = (code: FailureCode, retryable: boolean): PaystackFailure => ({ code, retryable });

/**
 * Paystack's failure texts (a failed transaction's `gateway_response`, an error answer's `message` or `code`) in our
 * words, keyed in lower case. Sources: the API's error pages (paystack.com/docs/api/errors/) and Paystack's support
 * articles on bank, customer and system errors. Texts not listed fall back to `declined`, not retried.
 */
export const PAYSTACK_FAILURES: Readonly<Record<string, PaystackFailure>> = {
  // The customer's bank account (gateway_response)
  'insufficient funds': fail('insufficient_funds', true),
  'account closed': fail('account_closed', false),
  /** "The customer's account cannot be charged at that time": the bank says try later. */
  'access denied': fail('declined', true),
  'expired card': fail('declined', false),
  'customer is blacklisted': fail('declined', false),
  'currency not supported': fail('declined', false),
  'denied by fraud system': fail('declined', false),
  'blocked by fraud system': fail('declined', false),
  declined: fail('declined', false),
  // The payer must act
  'enter the otp code sent to your phone to complete the transaction': fail('authentication_required', false),
  'an otp related error has occurred, please contact support': fail('authentication_required', false),
  // Paystack's or the bank's downtime
  'an unknown error has occurred, please contact system administrator': fail('provider_unavailable', true),
  'either remote server cannot be reached or the network connection was reset/broken': fail(
    'provider_unavailable',
    true,
  ),
  'error, please try again': fail('provider_unavailable', true),
  'an error occurred while processing the request': fail('provider_unavailable', true),
  // The authorization itself (error answers of charge_authorization)
  'authorization code does not exist or has been deactivated': fail('mandate_revoked', false),
  'this authorization is not reusable': fail('mandate_revoked', false),
  'email does not match authorization code. authorization may be inactive or belong to a different email. please confirm.':
    fail('mandate_revoked', false),
  'email does not match authorization code. please confirm': fail('mandate_revoked', false),
};

/** The first of `texts` the table knows, or null. */
export function paystackFailure(...texts: (string | null | undefined)[]): PaystackFailure | null {
  for (const text of texts) {
    const known = text ? PAYSTACK_FAILURES[text.trim().toLowerCase()] : undefined;
    if (known) return known;
  }
  return null;
}
