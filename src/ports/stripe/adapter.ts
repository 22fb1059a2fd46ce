import Stripe from 'stripe';
import {
  type AdapterFactory,
  type AuthorizationState,
  type ChargeLookup,
  type LiveChargeResult,
  type LiveProviderAdapter,
  ProviderCallError,
} from '../live-provider.js';
import { belowStripeMinimum, fromStripeAmount, toStripeAmount } from './amounts.js';
import { isTransient, toCallError } from './errors.js';
import { stripeFailure } from './failures.js';
import { summarizePaymentMethod } from './payment-method.js';
import { parseStripeWebhook } from './webhooks.js';

const DEFAULT_TIMEOUT_MS = 15_000;

/** The SDK's client pointed at `apiUrl` (Stripe or a fake). No SDK retries: a lost charge is reconciled, not resent. */
export function stripeClient(secretKey: string, apiUrl: string, timeoutMs: number): Stripe {
  const url = new URL(apiUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(secretKey, {
    apiVersion: Stripe.API_VERSION,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port || (protocol === 'http' ? 80 : 443),
    protocol,
    timeout: timeoutMs,
    maxNetworkRetries: 0,
    telemetry: false,
  });
}

/** Checkout replaces `{CHECKOUT_SESSION_ID}` in success_url with the session's id. */
function withSessionId(returnUrl: string): string {
  return `${returnUrl}${returnUrl.includes('?') ? '&' : '?'}session_id={CHECKOUT_SESSION_ID}`;
}

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value == null ? null : typeof value === 'string' ? value : value.id;

function failedCharge(
  code: Extract<LiveChargeResult, { status: 'failed' }>['code'],
  providerCode: string,
  message: string,
  retryable: boolean,
  providerReference: string | null,
): LiveChargeResult {
  return { status: 'failed', code, providerCode, message, retryable, providerReference };
}

/** Where a PaymentIntent stands, in our words (charge answers, lookups). */
function fromPaymentIntent(intent: Stripe.PaymentIntent): LiveChargeResult {
  switch (intent.status) {
    case 'succeeded':
      return { status: 'succeeded', providerReference: intent.id };
    case 'processing':
    case 'requires_capture':
      return { status: 'processing', providerReference: intent.id };
    case 'requires_action':
      // Off-session, nobody is there to complete 3-D Secure: the payer must come back (a pay link).
      return failedCharge(
        'authentication_required',
        'authentication_required',
        'The payment needs the payer to authenticate.',
        false,
        intent.id,
      );
    case 'canceled':
      return failedCharge('declined', 'canceled', 'The payment was canceled.', false, intent.id);
    default: {
      const error = intent.last_payment_error;
      const failure = stripeFailure(error?.decline_code, error?.code);
      return failedCharge(
        failure.code,
        failure.providerCode,
        error?.message ?? `The payment is ${intent.status}.`,
        failure.retryable,
        intent.id,
      );
    }
  }
}

/** A charge request's error: declines are answers; 429 was not processed; 5xx, timeouts and lost answers are unknown. */
function fromChargeError(error: unknown): LiveChargeResult {
  if (error instanceof Stripe.errors.StripeRateLimitError) {
    return failedCharge('provider_unavailable', 'rate_limit', 'Stripe rate-limited the charge.', true, null);
  }
  if (error instanceof Stripe.errors.StripeConnectionError || error instanceof Stripe.errors.StripeAPIError) {
    return { status: 'unknown', message: `Stripe's answer to the charge was lost: ${error.message}` };
  }
  if (error instanceof Stripe.errors.StripeIdempotencyError) {
    // The attempt id was used before with other parameters: that first charge is the one to look up.
    return { status: 'unknown', message: 'Stripe holds an earlier request with this attempt id.' };
  }
  if (error instanceof Stripe.errors.StripeError) {
    const failure = toCallError(error, 'the charge');
    return failedCharge(
      failure.code,
      failure.providerCode,
      failure.message,
      failure.retryable,
      idOf(error.payment_intent),
    );
  }
  return { status: 'unknown', message: error instanceof Error ? error.message : String(error) };
}

function fromSetupIntent(intent: Stripe.SetupIntent, customer: string | null): AuthorizationState {
  switch (intent.status) {
    case 'succeeded': {
      const method = intent.payment_method;
      if (!method) return { status: 'failed', reason: 'The setup succeeded without a payment method.' };
      return {
        status: 'active',
        providerReference: idOf(method)!,
        customerReference: idOf(intent.customer) ?? customer,
        paymentMethod: typeof method === 'string' ? null : summarizePaymentMethod(method),
      };
    }
    case 'canceled':
      return { status: 'failed', reason: 'The setup was canceled.' };
    case 'requires_payment_method':
      return intent.last_setup_error
        ? {
            status: 'failed',
            reason: intent.last_setup_error.message ?? 'The payment method could not be set up.',
          }
        : { status: 'pending' };
    default:
      // processing, or requires_action (bank accounts verified by microdeposits): the payer or bank has yet to act.
      return { status: 'pending' };
  }
}

/** Stripe search syntax: a value in single quotes, with quotes and backslashes escaped by a backslash. */
const quoted = (value: string) => `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;

/** A Checkout Session's hosted page: Stripe gives one for every session in hosted mode. */
function urlOf(session: Stripe.Checkout.Session): string {
  if (!session.url) {
    throw new ProviderCallError('provider_unavailable', 'no_url', 'Stripe gave no Checkout URL.', false);
  }
  return session.url;
}

export const createStripeAdapter: AdapterFactory = (credentials, options = {}) => {
  const stripe = stripeClient(
    credentials.secretKey,
    credentials.apiUrl,
    options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  );

  /** Our amount in Stripe's units, refused when it cannot be exact or (for charges) is below Stripe's minimum. */
  function amountFor(amount: number, currency: string, what: string, minimumApplies = true): number {
    const converted = toStripeAmount(amount, currency);
    if (!converted.ok) throw new ProviderCallError('declined', 'amount_invalid', converted.reason, false);
    const minimum = minimumApplies ? belowStripeMinimum(converted.amount, currency) : null;
    if (minimum !== null) {
      throw new ProviderCallError(
        'declined',
        'amount_too_small',
        `${what}: Stripe's minimum for ${currency.toUpperCase()} is ${minimum} in its units.`,
        false,
      );
    }
    return converted.amount;
  }

  const adapter: LiveProviderAdapter = {
    name: 'stripe',
    supports: new Set(['checkout', 'debit'] as const),

    async startAuthorization(request) {
      try {
        const customer = await stripe.customers.create(
          { name: request.payerName, email: request.payerEmail, metadata: { mandate_id: request.mandateId } },
          { idempotencyKey: `customer-${request.mandateId}` },
        );
        const session = await stripe.checkout.sessions.create(
          {
            mode: 'setup',
            customer: customer.id,
            currency: request.currency.toLowerCase(),
            success_url: withSessionId(request.returnUrl),
            cancel_url: request.cancelUrl,
            client_reference_id: request.mandateId,
            metadata: { mandate_id: request.mandateId },
            setup_intent_data: { metadata: { mandate_id: request.mandateId } },
          },
          { idempotencyKey: `setup-session-${request.mandateId}` },
        );
        return { url: urlOf(session), providerReference: session.id };
      } catch (error) {
        throw toCallError(error, 'the authorization');
      }
    },

    async checkAuthorization(providerReference) {
      try {
        if (providerReference.startsWith('seti_')) {
          const intent = await stripe.setupIntents.retrieve(providerReference, {
            expand: ['payment_method'],
          });
          return fromSetupIntent(intent, null);
        }
        const session = await stripe.checkout.sessions.retrieve(providerReference, {
          expand: ['setup_intent.payment_method'],
        });
        if (session.status === 'expired') {
          return {
            status: 'failed',
            reason: 'The payer did not finish before the Checkout Session expired.',
          };
        }
        if (session.status !== 'complete') return { status: 'pending' };
        const intent = session.setup_intent;
        if (!intent || typeof intent === 'string') return { status: 'pending' };
        return fromSetupIntent(intent, idOf(session.customer));
      } catch (error) {
        throw toCallError(error, 'the authorization check');
      }
    },

    async charge(request) {
      let amount: number;
      try {
        amount = amountFor(request.amount, request.currency, 'The charge');
      } catch (error) {
        const refused = error as ProviderCallError;
        return failedCharge(refused.code, refused.providerCode, refused.message, false, null);
      }
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount,
            currency: request.currency.toLowerCase(),
            customer: request.customerReference ?? undefined,
            payment_method: request.authorization,
            off_session: true,
            confirm: true,
            // Nobody is present to follow a redirect; without this a confirmed intent needs a return_url.
            automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
            metadata: { attempt_id: request.attemptId },
          },
          { idempotencyKey: request.attemptId },
        );
        return fromPaymentIntent(intent);
      } catch (error) {
        return fromChargeError(error);
      }
    },

    async lookupCharge(attemptId): Promise<ChargeLookup> {
      try {
        const found = await stripe.paymentIntents.search({
          query: `metadata['attempt_id']:${quoted(attemptId)}`,
          limit: 10,
        });
        const intents = found.data;
        if (intents.length === 0) return { status: 'not_found' };
        const settled =
          intents.find((i) => i.status === 'succeeded') ??
          intents.find((i) => i.status === 'processing') ??
          intents[0]!;
        return fromPaymentIntent(settled);
      } catch (error) {
        if (isTransient(error)) {
          return {
            status: 'unknown',
            message: `Stripe's search did not answer: ${(error as Error).message}`,
          };
        }
        throw toCallError(error, 'the charge lookup');
      }
    },

    async checkout(request) {
      try {
        const amount = amountFor(request.amount, request.currency, 'The checkout');
        const session = await stripe.checkout.sessions.create(
          {
            mode: 'payment',
            line_items: [
              {
                quantity: 1,
                price_data: {
                  currency: request.currency.toLowerCase(),
                  unit_amount: amount,
                  product_data: { name: 'Payment due' },
                },
              },
            ],
            customer_email: request.payerEmail,
            client_reference_id: request.reference,
            metadata: { checkout_reference: request.reference },
            payment_intent_data: { metadata: { checkout_reference: request.reference } },
            success_url: withSessionId(request.returnUrl),
            cancel_url: request.returnUrl,
          },
          { idempotencyKey: `checkout-${request.reference}` },
        );
        return { id: session.id, url: urlOf(session) };
      } catch (error) {
        throw toCallError(error, 'the checkout');
      }
    },

    async lookupCheckout(id): Promise<ChargeLookup> {
      let session: Stripe.Checkout.Session;
      try {
        session = await stripe.checkout.sessions.retrieve(id, { expand: ['payment_intent'] });
      } catch (error) {
        if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) {
          return { status: 'not_found' };
        }
        if (isTransient(error)) return { status: 'unknown', message: (error as Error).message };
        throw toCallError(error, 'the checkout lookup');
      }
      const intent = session.payment_intent;
      const intentId = idOf(intent);
      if (session.payment_status === 'paid' && intentId) {
        const currency = (session.currency ?? '').toUpperCase();
        return {
          status: 'succeeded',
          providerReference: intentId,
          ...(session.amount_total !== null && currency
            ? { amount: fromStripeAmount(session.amount_total, currency), currency }
            : {}),
        };
      }
      if (session.status === 'expired') {
        return failedCharge('declined', 'expired', 'The checkout expired unpaid.', false, intentId);
      }
      if (session.status === 'complete' && intent && typeof intent !== 'string') {
        // Completed but unpaid: a delayed method (bank debit) still clearing, or one that failed since.
        return fromPaymentIntent(intent);
      }
      return { status: 'unknown', message: 'The checkout is open: the payer has not paid yet.' };
    },

    async virtualAccount() {
      throw new ProviderCallError(
        'declined',
        'unsupported',
        'Stripe offers no virtual accounts through paytrack.',
        false,
      );
    },

    async refund(request) {
      try {
        const amount = amountFor(request.amount, request.currency, 'The refund', false);
        const refund = await stripe.refunds.create(
          {
            payment_intent: request.paymentProviderReference,
            amount,
            metadata: { payment_id: request.idempotencyKey },
          },
          { idempotencyKey: `refund-${request.idempotencyKey}` },
        );
        if (refund.status === 'succeeded') {
          return { status: 'succeeded', providerReference: refund.id, failureReason: null };
        }
        if (refund.status === 'failed' || refund.status === 'canceled') {
          return {
            status: 'failed',
            providerReference: refund.id,
            failureReason: refund.failure_reason ?? refund.status,
          };
        }
        // pending, or requires_action (methods without native refunds): Stripe's refund events follow.
        return { status: 'pending', providerReference: refund.id, failureReason: null };
      } catch (error) {
        throw toCallError(error, 'the refund');
      }
    },

    parseWebhook(raw, now) {
      return parseStripeWebhook(stripe, raw, credentials.webhookSecret, now);
    },
  };
  return adapter;
};
