import { createHmac, timingSafeEqual } from 'node:crypto';
import { type ProviderEvent, type RawWebhook, WebhookSignatureError } from '../live-provider.js';
import type { PaystackTransaction } from './client.js';
import { fromPaystackReference } from './references.js';

export const SIGNATURE_HEADER = 'x-paystack-signature';

/** Paystack's signature: the HMAC-SHA512 (hex) of the raw body, keyed with the secret key. */
export function paystackSignature(body: string, secretKey: string): string {
  return createHmac('sha512', secretKey).update(body).digest('hex');
}

function header(headers: RawWebhook['headers'], name: string): string | null {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    const first = Array.isArray(value) ? value[0] : value;
    return first ?? null;
  }
  return null;
}

export function checkPaystackSignature(raw: RawWebhook, secretKey: string): void {
  const given = header(raw.headers, SIGNATURE_HEADER);
  if (!given) throw new WebhookSignatureError(`The ${SIGNATURE_HEADER} header is missing.`);
  const expected = Buffer.from(paystackSignature(raw.body, secretKey), 'hex');
  const actual = /^[0-9a-f]+$/i.test(given) ? Buffer.from(given, 'hex') : Buffer.alloc(0);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    throw new WebhookSignatureError(`The ${SIGNATURE_HEADER} header does not match the body.`);
  }
}

/** A transaction's metadata: an object, or the stringified JSON charge_authorization takes. */
export function metadataOf(transaction: Pick<PaystackTransaction, 'metadata'>): Record<string, unknown> {
  const { metadata } = transaction;
  if (typeof metadata === 'object' && metadata !== null) return metadata as Record<string, unknown>;
  if (typeof metadata === 'string' && metadata.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(metadata);
      if (typeof parsed === 'object' && parsed !== null) return parsed as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  return {};
}

/** Set on every transaction we start, so that its `charge.success` says which of our things it pays. */
export const CHANNEL_METADATA_KEY = 'paytrack_channel';

type Data = Record<string, unknown>;

const text = (value: unknown): string | null =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;

function chargeSucceeded(event: string, data: Data, now: Date): ProviderEvent {
  const transaction = data as unknown as PaystackTransaction;
  const base = { eventId: `${event}:${text(data.id)}`, providerType: event };
  // The money's reference at Paystack: what `refund` takes and what refund events carry back.
  const providerReference = transaction.reference;
  const amount = Number(transaction.amount);
  const occurredAt = transaction.paid_at ?? transaction.paidAt ?? now.toISOString();
  if (transaction.channel === 'dedicated_nuban') {
    return {
      ...base,
      kind: 'charge.succeeded',
      channel: 'virtual_account',
      reference: transaction.authorization?.receiver_bank_account_number ?? null,
      providerReference,
      amount,
      currency: transaction.currency,
      occurredAt,
    };
  }
  const ours = metadataOf(transaction)[CHANNEL_METADATA_KEY];
  const debit = ours === 'debit' || (ours === undefined && transaction.channel === 'direct_debit');
  return {
    ...base,
    kind: 'charge.succeeded',
    channel: debit ? 'debit' : 'checkout',
    reference: fromPaystackReference(transaction.reference),
    providerReference,
    amount,
    currency: transaction.currency,
    occurredAt,
  };
}

const REFUND_KINDS: Record<string, 'refund.pending' | 'refund.succeeded' | 'refund.failed'> = {
  'refund.pending': 'refund.pending',
  'refund.processing': 'refund.pending',
  'refund.needs-attention': 'refund.pending',
  'refund.processed': 'refund.succeeded',
  'refund.failed': 'refund.failed',
};

function refundEvent(event: string, data: Data): ProviderEvent {
  const kind = REFUND_KINDS[event]!;
  const transactionReference = text(data.transaction_reference) ?? '';
  // Refund events carry no event id and, mostly, no refund id: the transaction, the status and the amount tell
  // one refund event from another, and a redelivery derives the same id.
  const refundId = text(data.id);
  return {
    eventId: `${event}:${transactionReference}:${text(data.status)}:${refundId ?? text(data.refund_reference) ?? ''}:${text(data.amount)}`,
    providerType: event,
    kind,
    paymentProviderReference: transactionReference,
    providerReference: refundId,
    failureReason: kind === 'refund.failed' ? (text(data.reason) ?? 'The refund failed at Paystack.') : null,
  };
}

/**
 * Paystack's webhook body in our words. It sends events for successful transactions only (no failed-charge event,
 * per its Verify Payments guide); a failed debit is found by `lookupCharge`.
 */
export function readPaystackEvents(body: string, now: Date): ProviderEvent[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = null;
  }
  if (typeof parsed !== 'object' || parsed === null) {
    return [{ eventId: 'unreadable', providerType: 'unreadable', kind: 'ignored' }];
  }
  const event = text((parsed as { event?: unknown }).event) ?? 'unknown';
  const data = ((parsed as { data?: unknown }).data ?? {}) as Data;
  if (event === 'charge.success') return [chargeSucceeded(event, data, now)];
  if (Object.hasOwn(REFUND_KINDS, event)) return [refundEvent(event, data)];
  if (event === 'direct_debit.authorization.created' || event === 'direct_debit.authorization.active') {
    const code = text(data.authorization_code) ?? '';
    const reference = text(data.reference);
    // The request's reference (what startAuthorization returned) is the only link Paystack sends back: it takes
    // no metadata on authorization requests. The app asks checkAuthorization for the rest.
    if (reference) {
      return [
        {
          eventId: `${event}:${code}`,
          providerType: event,
          kind: 'mandate.check',
          reference: null,
          providerReference: reference,
        },
      ];
    }
  }
  const id = text(data.id) ?? text(data.authorization_code) ?? text(data.reference) ?? '';
  return [{ eventId: `${event}:${id}`, providerType: event, kind: 'ignored' }];
}
