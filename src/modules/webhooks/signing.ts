import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

/** A new signing secret: `whsec_` and the base64 of 32 random bytes (Standard Webhooks form). */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Standard Webhooks headers for one delivery attempt. `attemptedAt` is the attempt's own time, not the
 * event's, so receivers that reject old timestamps still accept retries.
 */
export function signatureHeaders(
  secret: string,
  msgId: string,
  attemptedAt: Date,
  body: string,
): SignatureHeaders {
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(attemptedAt.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(msgId, attemptedAt, body),
  };
}
