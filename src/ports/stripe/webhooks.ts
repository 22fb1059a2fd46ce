import Stripe from 'stripe';
import { type ProviderEvent, type RawWebhook, WebhookSignatureError } from '../live-provider.js';
import { fromStripeAmount } from './amounts.js';
import { stripeFailure } from './failures.js';

/** Stripe's default tolerance (webhooks.constructEvent): an event signed more than 5 minutes ago is a replay. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

type Base = { eventId: string; providerType: string };

function header(headers: RawWebhook['headers'], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value == null ? null : typeof value === 'string' ? value : value.id;

/** Which of our things a PaymentIntent pays, from the metadata we gave it. */
function channelOf(metadata: Stripe.Metadata | null | undefined) {
  if (metadata?.attempt_id) return { channel: 'debit' as const, reference: metadata.attempt_id };
  if (metadata?.checkout_reference)
    return { channel: 'checkout' as const, reference: metadata.checkout_reference };
  return null;
}

function refundKind(status: string | null): 'refund.pending' | 'refund.succeeded' | 'refund.failed' {
  if (status === 'succeeded') return 'refund.succeeded';
  if (status === 'failed' || status === 'canceled') return 'refund.failed';
  return 'refund.pending';
}

function paymentIntentEvent(base: Base, event: Stripe.Event, intent: Stripe.PaymentIntent): ProviderEvent {
  const ours = channelOf(intent.metadata);
  if (!ours) return { ...base, kind: 'ignored' };
  switch (event.type) {
    case 'payment_intent.succeeded':
      return {
        ...base,
        kind: 'charge.succeeded',
        channel: ours.channel,
        reference: ours.reference,
        providerReference: intent.id,
        amount: fromStripeAmount(intent.amount_received || intent.amount, intent.currency),
        currency: intent.currency.toUpperCase(),
        occurredAt: new Date(event.created * 1000).toISOString(),
      };
    case 'payment_intent.processing':
      return { ...base, kind: 'charge.processing', reference: ours.reference, providerReference: intent.id };
    case 'payment_intent.payment_failed': {
      // A checkout's payer may try again on the same page: only the session's own events settle a checkout.
      if (ours.channel === 'checkout') return { ...base, kind: 'ignored' };
      const error = intent.last_payment_error;
      const failure = stripeFailure(error?.decline_code, error?.code);
      return {
        ...base,
        kind: 'charge.failed',
        reference: ours.reference,
        providerReference: intent.id,
        code: failure.code,
        providerCode: failure.providerCode,
        message: error?.message ?? 'The payment failed.',
        retryable: failure.retryable,
      };
    }
    default:
      return { ...base, kind: 'ignored' };
  }
}

function checkoutEvent(base: Base, event: Stripe.Event, session: Stripe.Checkout.Session): ProviderEvent {
  if (session.mode === 'setup') {
    if (event.type !== 'checkout.session.completed' && event.type !== 'checkout.session.expired') {
      return { ...base, kind: 'ignored' };
    }
    const reference = session.metadata?.mandate_id ?? session.client_reference_id;
    return { ...base, kind: 'mandate.check', reference, providerReference: session.id };
  }
  if (session.mode !== 'payment') return { ...base, kind: 'ignored' };
  const reference = session.metadata?.checkout_reference ?? session.client_reference_id;
  // The PaymentIntent's id, as payment_intent.succeeded carries it: one payment, one providerReference.
  const intentId = idOf(session.payment_intent);
  if (!intentId) return { ...base, kind: 'ignored' };
  const paid =
    (event.type === 'checkout.session.completed' && session.payment_status === 'paid') ||
    event.type === 'checkout.session.async_payment_succeeded';
  if (paid) {
    return {
      ...base,
      kind: 'charge.succeeded',
      channel: 'checkout',
      reference,
      providerReference: intentId,
      amount: fromStripeAmount(session.amount_total ?? 0, session.currency ?? ''),
      currency: (session.currency ?? '').toUpperCase(),
      occurredAt: new Date(event.created * 1000).toISOString(),
    };
  }
  if (event.type === 'checkout.session.completed' && session.payment_status === 'unpaid') {
    // A delayed method (bank debit): async_payment_succeeded or _failed follows.
    return { ...base, kind: 'charge.processing', reference, providerReference: intentId };
  }
  if (event.type === 'checkout.session.async_payment_failed') {
    return {
      ...base,
      kind: 'charge.failed',
      reference,
      providerReference: intentId,
      code: 'declined',
      providerCode: 'async_payment_failed',
      message: 'The delayed payment of the checkout failed.',
      retryable: false,
    };
  }
  return { ...base, kind: 'ignored' };
}

/** One verified Stripe event in our words. */
export function toProviderEvent(event: Stripe.Event): ProviderEvent {
  const base: Base = { eventId: event.id, providerType: event.type };
  switch (event.type) {
    case 'payment_intent.succeeded':
    case 'payment_intent.processing':
    case 'payment_intent.payment_failed':
      return paymentIntentEvent(base, event, event.data.object);
    case 'checkout.session.completed':
    case 'checkout.session.expired':
    case 'checkout.session.async_payment_succeeded':
    case 'checkout.session.async_payment_failed':
      return checkoutEvent(base, event, event.data.object);
    case 'setup_intent.succeeded':
    case 'setup_intent.setup_failed': {
      // Bank debits verified later (ACH microdeposits) end here, after the session completed: ask again.
      const intent = event.data.object;
      const reference = intent.metadata?.mandate_id;
      if (!reference) return { ...base, kind: 'ignored' };
      return { ...base, kind: 'mandate.check', reference, providerReference: intent.id };
    }
    case 'refund.created':
    case 'refund.updated':
    case 'refund.failed':
    case 'charge.refund.updated': {
      const refund = event.data.object;
      const paymentProviderReference = idOf(refund.payment_intent);
      if (!paymentProviderReference) return { ...base, kind: 'ignored' };
      const kind = refundKind(refund.status);
      return {
        ...base,
        kind,
        paymentProviderReference,
        providerReference: refund.id,
        failureReason: kind === 'refund.failed' ? (refund.failure_reason ?? refund.status ?? 'failed') : null,
      };
    }
    default:
      return { ...base, kind: 'ignored' };
  }
}

/** Verifies the Stripe-Signature header with the endpoint's secret (the SDK's check), then reads the event. */
export function parseStripeWebhook(
  stripe: Stripe,
  raw: RawWebhook,
  webhookSecret: string | null,
  now: Date,
): ProviderEvent[] {
  if (!webhookSecret) throw new WebhookSignatureError('No Stripe webhook signing secret is configured.');
  const signature = header(raw.headers, 'stripe-signature');
  if (!signature) throw new WebhookSignatureError('The Stripe-Signature header is missing.');
  let event: Stripe.Event;
  try {
    event = stripe.webhooks.constructEvent(
      raw.body,
      signature,
      webhookSecret,
      SIGNATURE_TOLERANCE_SECONDS,
      undefined,
      now.getTime(),
    );
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
      throw new WebhookSignatureError('The Stripe-Signature does not match the body or is too old.');
    }
    throw error;
  }
  return [toProviderEvent(event)];
}
