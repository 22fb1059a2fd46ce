/** Failure codes every provider's answers are normalised to. */
export const FAILURE_CODES = [
  'insufficient_funds',
  'account_closed',
  'mandate_revoked',
  'provider_unavailable',
  'timeout',
  'declined',
  /** The payer must act (3-D Secure, a bank's confirmation): not retried; a reminder with a pay link goes instead. */
  'authentication_required',
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

const RETRYABLE: ReadonlySet<FailureCode> = new Set([
  'insufficient_funds',
  'provider_unavailable',
  'timeout',
]);

export function isRetryable(code: FailureCode): boolean {
  return RETRYABLE.has(code);
}
