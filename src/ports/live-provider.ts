import type { FailureCode } from './failure-codes.js';
import type { VirtualAccount } from './payment-providers.js';

/**
 * What a real payment provider (Paystack, Stripe) does for us, in our words. One adapter per provider implements
 * it over the provider's own API; the app never sees the provider's shapes. Amounts are integers of our minor
 * units (lib/money.ts); an adapter converts where the provider counts otherwise.
 */

/** A workspace's credentials for one provider and mode, decrypted only to make the adapter. */
export interface ProviderCredentials {
  secretKey: string;
  /** Stripe's endpoint signing secret (`whsec_…`); Paystack signs with the secret key and needs none. */
  webhookSecret: string | null;
  /** The provider's API root without a trailing slash (PAYSTACK_API_URL, STRIPE_API_URL): fakes stand in for it in tests. */
  apiUrl: string;
}

/** What a payer's saved payment method is, safe to show: never a full number. */
export interface PaymentMethodSummary {
  /** `card`, `direct_debit`, `sepa_debit`, `bacs_debit`, `us_bank_account`, … */
  type: string;
  bank: string | null;
  last4: string | null;
}

/** Where a mandate's authorization on the provider's hosted page stands. */
export type AuthorizationState =
  | {
      status: 'active';
      /** What charges are made with: Paystack's authorization code, Stripe's payment method id. */
      providerReference: string;
      /** Paystack's customer code or Stripe's customer id, when the provider has one. */
      customerReference: string | null;
      paymentMethod: PaymentMethodSummary | null;
    }
  | { status: 'pending' }
  | { status: 'failed'; reason: string };

export interface AuthorizationRequest {
  /** Our mandate id: the idempotency key, and the reference the provider's events carry back. */
  mandateId: string;
  payerName: string;
  payerEmail: string;
  /** What each collection takes, when its schedule fixes it. */
  amount: number | null;
  currency: string;
  /** Our return page (`PUBLIC_URL/consent/<token>/return`): the provider sends the payer there when done. */
  returnUrl: string;
  /** Where a payer who cancels on the provider's page is sent. */
  cancelUrl: string;
}

export interface ChargeRequest {
  /** Our attempt id: the idempotency key, and the reference the provider's events carry back. */
  attemptId: string;
  /** The mandate's provider reference (authorization code, payment method id). */
  authorization: string;
  customerReference: string | null;
  payerEmail: string;
  amount: number;
  currency: string;
}

export type LiveChargeResult =
  /** `amount` and `currency` (ours) when the provider's answer says what was paid (a checkout's lookup). */
  | { status: 'succeeded'; providerReference: string; amount?: number; currency?: string }
  /** Asynchronous (bank debits): the provider's webhook says later. */
  | { status: 'processing'; providerReference: string }
  | {
      status: 'failed';
      code: FailureCode;
      /** The provider's own decline or error code, kept beside the normalised one. */
      providerCode: string;
      message: string;
      retryable: boolean;
      providerReference: string | null;
    }
  /** Timeout, connection lost: the charge may or may not exist; ask with `lookupCharge`, never charge again. */
  | { status: 'unknown'; message: string };

export type ChargeLookup = LiveChargeResult | { status: 'not_found' };

export interface CheckoutRequest {
  /** Ours (an obligation's checkout reference): the provider's transaction reference or client reference. */
  reference: string;
  amount: number;
  currency: string;
  payerEmail: string;
  /** Where the provider sends the payer after paying. */
  returnUrl: string;
}

export interface RefundRequest {
  /** The provider's reference of the money to refund (what `charge.succeeded` carried). */
  paymentProviderReference: string;
  amount: number;
  currency: string;
  /** Our payment id: the idempotency key. */
  idempotencyKey: string;
}

export interface RefundResult {
  status: 'pending' | 'succeeded' | 'failed';
  providerReference: string | null;
  failureReason: string | null;
}

interface EventBase {
  /** The provider's event id where it has one; else one derived from the event's type and object id. */
  eventId: string;
  /** The provider's event type as sent (`charge.success`, `payment_intent.succeeded`). */
  providerType: string;
}

/** A provider's webhook event, in our words. */
export type ProviderEvent =
  | (EventBase & {
      kind: 'charge.succeeded';
      /** Which of our things it pays: a debit (attempt id), a checkout (its reference), a transfer (account number). */
      channel: 'debit' | 'checkout' | 'virtual_account';
      /** Our attempt id, our checkout reference, or the virtual account's number; null when the provider carried none. */
      reference: string | null;
      providerReference: string;
      amount: number;
      currency: string;
      occurredAt: string;
    })
  | (EventBase & {
      kind: 'charge.processing';
      reference: string | null;
      providerReference: string;
    })
  | (EventBase & {
      kind: 'charge.failed';
      reference: string | null;
      providerReference: string | null;
      code: FailureCode;
      providerCode: string;
      message: string;
      retryable: boolean;
    })
  | (EventBase & {
      kind: 'mandate.active';
      /** Our mandate id. */
      reference: string | null;
      authorization: Extract<AuthorizationState, { status: 'active' }>;
    })
  /** The event says an authorization moved but not all we keep: the app asks `checkAuthorization(providerReference)`. */
  | (EventBase & { kind: 'mandate.check'; reference: string | null; providerReference: string })
  | (EventBase & { kind: 'mandate.failed'; reference: string | null; reason: string })
  | (EventBase & {
      kind: 'refund.pending' | 'refund.succeeded' | 'refund.failed';
      /** The refunded money's provider reference (as on `charge.succeeded`). */
      paymentProviderReference: string;
      providerReference: string | null;
      failureReason: string | null;
    })
  | (EventBase & { kind: 'ignored' });

export interface RawWebhook {
  /** The body exactly as it arrived: signatures cover it. */
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** A webhook whose signature is missing, wrong or stale: answered 401, nothing changes. */
export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

/** A provider call that failed outside a charge (authorization, checkout, account, refund). */
export class ProviderCallError extends Error {
  constructor(
    readonly code: FailureCode,
    readonly providerCode: string,
    message: string,
    /** True for timeouts, 5xx and 429: try again later. */
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'ProviderCallError';
  }
}

export interface AdapterOptions {
  /** How long one provider call may take before it counts as a timeout (default 15 s). */
  timeoutMs?: number;
}

/** Each adapter module exports a factory of this shape. */
export type AdapterFactory = (
  credentials: ProviderCredentials,
  options?: AdapterOptions,
) => LiveProviderAdapter;

export interface LiveProviderAdapter {
  readonly name: 'paystack' | 'stripe';
  /** Which of the seed's rails this provider can serve. */
  readonly supports: ReadonlySet<'checkout' | 'virtual_account' | 'debit'>;
  /** Starts the payer's authorization on the provider's hosted page. */
  startAuthorization(request: AuthorizationRequest): Promise<{ url: string; providerReference: string }>;
  /** Asks the provider where an authorization stands (on our return page, or when no webhook came). */
  checkAuthorization(providerReference: string): Promise<AuthorizationState>;
  charge(request: ChargeRequest): Promise<LiveChargeResult>;
  /** What became of a charge made with this attempt id, asked of the provider: reconciliation, never a new charge. */
  lookupCharge(attemptId: string): Promise<ChargeLookup>;
  checkout(request: CheckoutRequest): Promise<{ id: string; url: string }>;
  /** Whether a checkout was paid, asked of the provider (on return, when no webhook came). */
  lookupCheckout(id: string): Promise<ChargeLookup>;
  virtualAccount(request: {
    reference: string;
    accountName: string;
    payerEmail: string;
    phone: string | null;
  }): Promise<VirtualAccount>;
  refund(request: RefundRequest): Promise<RefundResult>;
  /** Checks the signature (throws WebhookSignatureError) and reads the events the webhook carries. */
  parseWebhook(raw: RawWebhook, now: Date): ProviderEvent[];
}
