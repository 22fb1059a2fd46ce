import { request } from 'undici';

/**
 * Paystack's HTTP API as the adapter uses it: every answer is the envelope `{ status, message, data }`, errors add
 * `type`, `code` and `meta.nextStep` (https://paystack.com/docs/api/errors/).
 */
export interface PaystackEnvelope<T> {
  status: boolean;
  message: string;
  data?: T;
  type?: string;
  code?: string;
  meta?: { nextStep?: string };
}

export interface PaystackAnswer<T> {
  httpStatus: number;
  /** Null when the body was not Paystack's JSON envelope (a proxy's error page, an empty body). */
  body: PaystackEnvelope<T> | null;
}

/** No answer at all: the request may or may not have reached Paystack. */
export class PaystackTransportError extends Error {
  constructor(
    readonly kind: 'timeout' | 'network',
    message: string,
  ) {
    super(message);
    this.name = 'PaystackTransportError';
  }
}

export interface PaystackCustomer {
  id: number;
  customer_code: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  authorizations?: PaystackAuthorization[];
}

/** The authorization object of transactions, customers and direct debit events. */
export interface PaystackAuthorization {
  authorization_code: string;
  last4: string | null;
  channel: string | null;
  bank: string | null;
  reusable?: boolean;
  /** Dedicated account transfers: the account that received the money. */
  receiver_bank_account_number?: string | null;
}

/** A transaction as charge_authorization and verify answer it, and as `charge.success` carries it. */
export interface PaystackTransaction {
  id: number;
  status: string;
  reference: string;
  amount: number;
  currency: string;
  gateway_response: string | null;
  message?: string | null;
  channel: string;
  metadata?: unknown;
  paid_at?: string | null;
  paidAt?: string | null;
  created_at?: string;
  authorization?: PaystackAuthorization | null;
  customer?: { customer_code?: string; email?: string } | null;
}

export interface PaystackAuthorizationRequest {
  redirect_url: string;
  access_code: string;
  reference: string;
}

export interface PaystackAuthorizationStatus {
  authorization_code: string;
  channel: string;
  bank: string | null;
  active: boolean;
  customer: { code: string; email: string };
}

export interface PaystackCheckout {
  authorization_url: string;
  access_code: string;
  reference: string;
}

export interface PaystackDedicatedAccount {
  bank: { name: string; id: number; slug: string };
  account_name: string;
  account_number: string;
}

export interface PaystackRefund {
  id: number;
  status: string;
  amount: number;
  currency: string;
}

export interface PaystackClient {
  call<T>(method: 'GET' | 'POST', path: string, body?: Record<string, unknown>): Promise<PaystackAnswer<T>>;
}

function isEnvelope(value: unknown): value is PaystackEnvelope<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    'status' in value &&
    'message' in value &&
    typeof (value as { message: unknown }).message === 'string'
  );
}

function describe(error: unknown, timeoutMs: number): PaystackTransportError {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return new PaystackTransportError('timeout', `no answer from Paystack within ${timeoutMs} ms`);
  }
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return new PaystackTransportError('network', typeof code === 'string' ? `${code}: ${message}` : message);
}

/**
 * Typed calls with a hard deadline (an AbortSignal: undici's own timeouts fire late). The secret key goes in the
 * Authorization header only, never in a message.
 */
export function createPaystackClient(options: {
  apiUrl: string;
  secretKey: string;
  timeoutMs: number;
}): PaystackClient {
  const root = options.apiUrl.replace(/\/+$/, '');
  return {
    async call<T>(method: 'GET' | 'POST', path: string, body?: Record<string, unknown>) {
      try {
        const response = await request(`${root}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${options.secretKey}`,
            accept: 'application/json',
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          body: body ? JSON.stringify(body) : undefined,
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        const text = await response.body.text();
        let parsed: unknown = null;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = null;
        }
        return {
          httpStatus: response.statusCode,
          body: isEnvelope(parsed) ? (parsed as PaystackEnvelope<T>) : null,
        };
      } catch (error) {
        throw describe(error, options.timeoutMs);
      }
    },
  };
}
