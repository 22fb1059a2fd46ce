import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FailureCode } from './failure-codes.js';

export const NOTIFICATION_TYPES = [
  'transfer.received',
  'checkout.completed',
  'charge.succeeded',
  'charge.failed',
] as const;

/** A provider's notification, normalised: what every adapter's `parseNotification` gives. */
export interface InboundNotification {
  id: string;
  type: (typeof NOTIFICATION_TYPES)[number];
  /** The virtual account number, the checkout id, or the collection attempt id it is about. */
  reference: string;
  amount: number;
  currency: string;
  occurred_at: string;
  failure_code?: string;
  /** Set by a provider's own webhook: the provider's reference of the money (what a refund names). */
  provider_reference?: string;
  /** Set by a provider's own webhook for a failed charge: the failure, normalised and as the provider said it. */
  failure?: { code: FailureCode; providerCode: string; message: string; retryable: boolean };
}

export interface RawNotification {
  rawBody: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The notification secret of the workspace's setting for this provider, as `paytrack provider set` printed it. */
  secret: string;
}

export type ParsedNotification =
  | { ok: true; notification: InboundNotification }
  | { ok: false; reason: string };

/** Whether `signature` (hex) is the HMAC-SHA256 of the raw body keyed with the secret, compared in constant time. */
export function signatureMatches(secret: string, rawBody: string, signature: unknown): boolean {
  if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/i.test(signature)) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

/**
 * Notifications in paytrack's own form (the body the API describes, signed in `x-provider-signature`): what the
 * test simulator sends and what a provider without an adapter of its own is asked to send. The route has
 * checked the body's shape against that form.
 */
export function parseStandardNotification(raw: RawNotification): ParsedNotification {
  if (!signatureMatches(raw.secret, raw.rawBody, raw.headers['x-provider-signature'])) {
    return {
      ok: false,
      reason:
        'The x-provider-signature header is not the HMAC-SHA256 (hex) of the body with this setting’s notification secret.',
    };
  }
  // What only a provider's own webhook sets (`failure`, `provider_reference`) is not read from this form.
  const {
    failure: _failure,
    provider_reference: _reference,
    ...notification
  } = JSON.parse(raw.rawBody) as InboundNotification;
  return { ok: true, notification };
}
