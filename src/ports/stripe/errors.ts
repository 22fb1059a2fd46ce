import Stripe from 'stripe';
import { ProviderCallError } from '../live-provider.js';
import { stripeFailure } from './failures.js';

/** A Stripe failure is transient when the request never ran or may have: 429, 5xx, timeouts, lost connections. */
export function isTransient(error: unknown): boolean {
  return (
    error instanceof Stripe.errors.StripeRateLimitError ||
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeAPIError
  );
}

/**
 * A failed call outside a charge, in our words. Stripe's message is kept where it describes the request; an
 * authentication error's message quotes part of the key, so ours replaces it.
 */
export function toCallError(error: unknown, what: string): ProviderCallError {
  if (error instanceof ProviderCallError) return error;
  if (error instanceof Stripe.errors.StripeRateLimitError) {
    return new ProviderCallError('provider_unavailable', 'rate_limit', `Stripe rate-limited ${what}.`, true);
  }
  if (error instanceof Stripe.errors.StripeConnectionError) {
    return new ProviderCallError(
      'timeout',
      'connection_error',
      `Stripe did not answer ${what} in time.`,
      true,
    );
  }
  if (error instanceof Stripe.errors.StripeAPIError) {
    return new ProviderCallError(
      'provider_unavailable',
      error.code ?? 'api_error',
      `Stripe failed ${what}.`,
      true,
    );
  }
  if (
    error instanceof Stripe.errors.StripeAuthenticationError ||
    error instanceof Stripe.errors.StripePermissionError
  ) {
    return new ProviderCallError(
      'provider_unavailable',
      error.code ?? 'authentication_error',
      `Stripe refused the workspace's secret key for ${what}.`,
      true,
    );
  }
  if (error instanceof Stripe.errors.StripeError) {
    const failure = stripeFailure(error.decline_code, error.code);
    return new ProviderCallError(failure.code, failure.providerCode, error.message, failure.retryable);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderCallError('provider_unavailable', 'unexpected', `${what} failed: ${message}`, true);
}
