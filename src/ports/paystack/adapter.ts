import type {
  AdapterFactory,
  AuthorizationState,
  ChargeLookup,
  LiveChargeResult,
  LiveProviderAdapter,
  RefundResult,
} from '../live-provider.js';
import { ProviderCallError } from '../live-provider.js';
import type { VirtualAccount } from '../payment-providers.js';
import {
  createPaystackClient,
  type PaystackAnswer,
  type PaystackAuthorizationRequest,
  type PaystackAuthorizationStatus,
  type PaystackCheckout,
  type PaystackCustomer,
  type PaystackDedicatedAccount,
  type PaystackRefund,
  type PaystackTransaction,
  PaystackTransportError,
} from './client.js';
import { paystackFailure } from './failures.js';
import { toPaystackReference } from './references.js';
import { CHANNEL_METADATA_KEY, checkPaystackSignature, readPaystackEvents } from './webhooks.js';

const DEFAULT_TIMEOUT_MS = 15_000;

/** Transaction states of the Verify Payments guide, plus the /charge states that wait on the payer. */
const IN_PROGRESS = new Set(['pending', 'processing', 'ongoing', 'queued']);
const PAYER_MUST_ACT = new Set([
  'send_otp',
  'send_pin',
  'send_phone',
  'send_birthday',
  'send_address',
  'open_url',
  'pay_offline',
]);

function describeAnswer(answer: PaystackAnswer<unknown>): string {
  return answer.body?.message ?? `HTTP ${answer.httpStatus} without Paystack's JSON body`;
}

/** An answer other than success, outside charges, as the error the app handles. */
function callError(answer: PaystackAnswer<unknown>, what: string): ProviderCallError {
  const message = `Paystack ${what}: ${describeAnswer(answer)}`;
  const status = answer.httpStatus;
  if (status === 429) return new ProviderCallError('provider_unavailable', 'rate_limited', message, true);
  if (status >= 500) return new ProviderCallError('provider_unavailable', `http_${status}`, message, true);
  if (status === 401) return new ProviderCallError('provider_unavailable', 'invalid_key', message, false);
  const known = paystackFailure(answer.body?.message, answer.body?.code);
  const providerCode = answer.body?.code ?? answer.body?.type ?? `http_${status}`;
  return new ProviderCallError(known?.code ?? 'declined', providerCode, message, known?.retryable ?? false);
}

function transportError(error: PaystackTransportError, what: string): ProviderCallError {
  return new ProviderCallError(
    error.kind === 'timeout' ? 'timeout' : 'provider_unavailable',
    error.kind,
    `Paystack ${what}: ${error.message}`,
    true,
  );
}

function succeeded<T>(answer: PaystackAnswer<T>): T | null {
  const ok = answer.httpStatus >= 200 && answer.httpStatus < 300 && answer.body?.status === true;
  return ok && answer.body?.data !== undefined ? answer.body.data : null;
}

function failedTransaction(transaction: PaystackTransaction): LiveChargeResult {
  const reason = transaction.gateway_response ?? transaction.message ?? transaction.status;
  const known = paystackFailure(transaction.gateway_response, transaction.message);
  return {
    status: 'failed',
    code: known?.code ?? 'declined',
    providerCode: reason,
    message: reason,
    retryable: known?.retryable ?? false,
    providerReference: transaction.reference,
  };
}

/** A transaction's state in our words; `abandoned` is a checkout not paid yet, or a charge that never completed. */
function transactionResult(
  transaction: PaystackTransaction,
  abandoned: 'processing' | 'failed',
): LiveChargeResult {
  const { status, reference } = transaction;
  // `reversed`: the money was taken, then refunded or charged back; the charge itself succeeded.
  if (status === 'success' || status === 'reversed')
    return { status: 'succeeded', providerReference: reference };
  if (IN_PROGRESS.has(status)) return { status: 'processing', providerReference: reference };
  if (status === 'abandoned' && abandoned === 'processing') {
    return { status: 'processing', providerReference: reference };
  }
  if (PAYER_MUST_ACT.has(status)) {
    return {
      status: 'failed',
      code: 'authentication_required',
      providerCode: status,
      message: transaction.gateway_response ?? `Paystack waits on the payer (${status}).`,
      retryable: false,
      providerReference: reference,
    };
  }
  if (status === 'failed' || status === 'abandoned') return failedTransaction(transaction);
  return { status: 'unknown', message: `Paystack answered an unknown transaction status '${status}'.` };
}

function splitName(name: string): { first_name: string; last_name: string } {
  const [first = name, ...rest] = name.trim().split(/\s+/);
  return { first_name: first, last_name: rest.length > 0 ? rest.join(' ') : first };
}

export const createPaystackAdapter: AdapterFactory = (credentials, options = {}) => {
  const client = createPaystackClient({
    apiUrl: credentials.apiUrl,
    secretKey: credentials.secretKey,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });
  // Dedicated accounts come from `test-bank` in test mode and a partner bank in live mode (Paystack's DVA guide).
  const preferredBank = credentials.secretKey.startsWith('sk_test_') ? 'test-bank' : 'wema-bank';

  /** A call outside charges: the data, or a ProviderCallError. */
  async function call<T>(
    what: string,
    method: 'GET' | 'POST',
    path: string,
    body?: Record<string, unknown>,
  ): Promise<T> {
    let answer: PaystackAnswer<T>;
    try {
      answer = await client.call<T>(method, path, body);
    } catch (error) {
      if (error instanceof PaystackTransportError) throw transportError(error, what);
      throw error;
    }
    const data = succeeded(answer);
    if (data === null) throw callError(answer, what);
    return data;
  }

  /** Verify Transaction: answers 404 "Transaction reference not found" for a reference it never saw. */
  async function verify(reference: string, abandoned: 'processing' | 'failed'): Promise<ChargeLookup> {
    let answer: PaystackAnswer<PaystackTransaction>;
    try {
      answer = await client.call<PaystackTransaction>(
        'GET',
        `/transaction/verify/${encodeURIComponent(reference)}`,
      );
    } catch (error) {
      if (error instanceof PaystackTransportError) return { status: 'unknown', message: error.message };
      throw error;
    }
    const transaction = succeeded(answer);
    if (transaction) {
      const result = transactionResult(transaction, abandoned);
      // A checkout's lookup says what was paid, so that it can be recorded without the webhook.
      return result.status === 'succeeded' && abandoned === 'processing'
        ? { ...result, amount: Number(transaction.amount), currency: transaction.currency }
        : result;
    }
    const notFound = /reference not found/i.test(answer.body?.message ?? '');
    if (answer.httpStatus === 404 || (answer.httpStatus === 400 && notFound)) return { status: 'not_found' };
    return { status: 'unknown', message: `Paystack verify: ${describeAnswer(answer)}` };
  }

  async function lastFour(customerCode: string, authorizationCode: string): Promise<string | null> {
    try {
      const customer = await call<PaystackCustomer>(
        'customer fetch',
        'GET',
        `/customer/${encodeURIComponent(customerCode)}`,
      );
      return customer.authorizations?.find((a) => a.authorization_code === authorizationCode)?.last4 ?? null;
    } catch {
      return null; // the summary is for display; the authorization stands without it
    }
  }

  const adapter: LiveProviderAdapter = {
    name: 'paystack',
    supports: new Set(['checkout', 'virtual_account', 'debit']),

    async startAuthorization(request) {
      // Initialize Authorization takes email, channel, callback_url (and prefill objects): no metadata, so the
      // request's reference is what links Paystack's events back to the mandate.
      const data = await call<PaystackAuthorizationRequest>(
        'authorization',
        'POST',
        '/customer/authorization/initialize',
        { email: request.payerEmail, channel: 'direct_debit', callback_url: request.returnUrl },
      );
      return { url: data.redirect_url, providerReference: data.reference };
    },

    async checkAuthorization(providerReference): Promise<AuthorizationState> {
      let data: PaystackAuthorizationStatus;
      try {
        data = await call<PaystackAuthorizationStatus>(
          'authorization check',
          'GET',
          `/customer/authorization/verify/${encodeURIComponent(providerReference)}`,
        );
      } catch (error) {
        // Paystack answers an authorization not completed (the payer still on its page, or gone) as not found:
        // it is pending until it is active, and the mandate's consent window decides when to stop waiting.
        if (error instanceof ProviderCallError && !error.retryable && error.providerCode !== 'invalid_key') {
          return { status: 'pending' };
        }
        throw error;
      }
      if (!data.active) return { status: 'pending' };
      return {
        status: 'active',
        providerReference: data.authorization_code,
        customerReference: data.customer.code,
        paymentMethod: {
          type: data.channel || 'direct_debit',
          bank: data.bank ?? null,
          last4: await lastFour(data.customer.code, data.authorization_code),
        },
      };
    },

    async charge(request): Promise<LiveChargeResult> {
      const reference = toPaystackReference(request.attemptId);
      let answer: PaystackAnswer<PaystackTransaction>;
      try {
        answer = await client.call<PaystackTransaction>('POST', '/transaction/charge_authorization', {
          email: request.payerEmail,
          amount: request.amount,
          authorization_code: request.authorization,
          reference,
          currency: request.currency,
          // charge_authorization takes metadata as stringified JSON
          metadata: JSON.stringify({ [CHANNEL_METADATA_KEY]: 'debit', attempt_id: request.attemptId }),
        });
      } catch (error) {
        if (error instanceof PaystackTransportError) return { status: 'unknown', message: error.message };
        throw error;
      }
      const transaction = succeeded(answer);
      if (transaction) return transactionResult(transaction, 'failed');
      const status = answer.httpStatus;
      if (status === 429) {
        return {
          status: 'failed',
          code: 'provider_unavailable',
          providerCode: 'rate_limited',
          message: `Paystack refused the charge for now: ${describeAnswer(answer)}`,
          retryable: true,
          providerReference: null,
        };
      }
      if (status >= 500 || (status >= 200 && status < 300) || answer.body === null) {
        return { status: 'unknown', message: `Paystack charge: ${describeAnswer(answer)}` };
      }
      if (
        answer.body.code === 'duplicate_reference' ||
        /duplicate transaction reference/i.test(answer.body.message)
      ) {
        // This attempt was charged before (a retry after a lost answer): report that charge, never a second one.
        const earlier = await verify(reference, 'failed');
        return earlier.status === 'not_found'
          ? { status: 'unknown', message: 'Paystack says the reference was used but cannot find it.' }
          : earlier;
      }
      const known = paystackFailure(answer.body.message, answer.body.code);
      return {
        status: 'failed',
        code: status === 401 ? 'provider_unavailable' : (known?.code ?? 'declined'),
        providerCode: status === 401 ? 'invalid_key' : (answer.body.code ?? answer.body.message),
        message: answer.body.message,
        retryable: status === 401 ? false : (known?.retryable ?? false),
        providerReference: null,
      };
    },

    lookupCharge(attemptId) {
      return verify(toPaystackReference(attemptId), 'failed');
    },

    async checkout(request) {
      const data = await call<PaystackCheckout>('checkout', 'POST', '/transaction/initialize', {
        email: request.payerEmail,
        amount: request.amount,
        currency: request.currency,
        reference: toPaystackReference(request.reference),
        callback_url: request.returnUrl,
        metadata: { [CHANNEL_METADATA_KEY]: 'checkout' },
      });
      // The id is Paystack's reference: what lookupCheckout verifies.
      return { id: data.reference, url: data.authorization_url };
    },

    lookupCheckout(id) {
      return verify(id, 'processing');
    },

    async virtualAccount(request): Promise<VirtualAccount> {
      // Create Customer answers with the integration's customer for an email it already has.
      const customer = await call<PaystackCustomer>('customer', 'POST', '/customer', {
        email: request.payerEmail,
        ...splitName(request.accountName),
        ...(request.phone ? { phone: request.phone } : {}),
      });
      const account = await call<PaystackDedicatedAccount>(
        'dedicated account',
        'POST',
        '/dedicated_account',
        {
          customer: customer.customer_code,
          preferred_bank: preferredBank,
        },
      );
      return { bank: account.bank.name, number: account.account_number, name: account.account_name };
    },

    async refund(request): Promise<RefundResult> {
      const data = await call<PaystackRefund>('refund', 'POST', '/refund', {
        transaction: request.paymentProviderReference,
        amount: request.amount,
        currency: request.currency,
        merchant_note: `paytrack payment ${request.idempotencyKey}`,
      });
      const providerReference = String(data.id);
      if (data.status === 'processed') return { status: 'succeeded', providerReference, failureReason: null };
      if (data.status === 'failed') {
        return {
          status: 'failed',
          providerReference,
          failureReason: 'Paystack could not process the refund.',
        };
      }
      return { status: 'pending', providerReference, failureReason: null };
    },

    parseWebhook(raw, now) {
      checkPaystackSignature(raw, credentials.secretKey);
      return readPaystackEvents(raw.body, now);
    },
  };
  return adapter;
};
