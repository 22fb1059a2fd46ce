import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { STRIPE_MINIMUM_CHARGE } from '../../src/ports/stripe/amounts.js';

/**
 * A local stand-in for Stripe's API (docs.stripe.com/api), for tests: the endpoints paytrack's Stripe adapter calls,
 * with Stripe's form-encoded requests, Bearer auth, Idempotency-Key replay, error bodies and statuses, hosted Checkout
 * pages, and webhooks signed as Stripe signs them (Stripe-Signature: t=<unix>,v1=<HMAC-SHA256 of "t.body">).
 */

export type StripeChargeOutcome =
  | 'success'
  | 'processing'
  | { decline: string }
  | 'timeout'
  | { status: 500 | 429 | 503 };

export type PaymentMethodType = 'card' | 'sepa_debit' | 'bacs_debit' | 'us_bank_account';

export interface SignedWebhook {
  body: string;
  headers: Record<string, string>;
}

export interface StripeFakeOptions {
  secretKey?: string;
  /** The endpoint's signing secret (`whsec_…`). */
  webhookSecret?: string;
  /** When set, every webhook the fake produces is POSTed here too. */
  webhookUrl?: string;
  /** How long a `'timeout'` charge holds its answer (default: until the fake closes). */
  delayMs?: number;
}

export interface LoggedRequest {
  method: string;
  path: string;
  body: Record<string, unknown>;
  query: Record<string, unknown>;
  idempotencyKey: string | null;
}

type Obj = Record<string, any>;

export interface StripeFake {
  url: string;
  secretKey: string;
  webhookSecret: string;
  requests: LoggedRequest[];
  customers: Map<string, Obj>;
  paymentMethods: Map<string, Obj>;
  setupIntents: Map<string, Obj>;
  paymentIntents: Map<string, Obj>;
  sessions: Map<string, Obj>;
  refunds: Map<string, Obj>;
  /** Every event the fake produced, oldest first. */
  events: Obj[];
  nextCharge(outcome: StripeChargeOutcome): void;
  completeAuthorization(
    sessionId: string,
    details?: { type?: PaymentMethodType; bank?: string; last4?: string },
  ): Promise<SignedWebhook[]>;
  payCheckout(sessionId: string, details?: { type?: PaymentMethodType }): Promise<SignedWebhook[]>;
  /** Settles a bank debit (PaymentIntent id or our attempt id) as the bank answers. */
  settleDebit(ref: string, outcome: 'success' | 'failed', failureCode?: string): Promise<SignedWebhook[]>;
  settleRefund(refundId: string, outcome: 'succeeded' | 'failed'): Promise<SignedWebhook[]>;
  /** Signs any body as Stripe would at `at` (default now). */
  sign(body: string, at?: Date): Record<string, string>;
  close(): Promise<void>;
}

const API_VERSION = '2026-10-28.endive';
const ZERO_DECIMAL = new Set([
  'bif',
  'clp',
  'djf',
  'gnf',
  'jpy',
  'kmf',
  'krw',
  'mga',
  'pyg',
  'rwf',
  'ugx',
  'vnd',
  'vuv',
  'xaf',
  'xof',
  'xpf',
]);
const THREE_DECIMAL = new Set(['bhd', 'jod', 'kwd', 'omr', 'tnd']);
const CURRENCIES = new Set(Intl.supportedValuesOf('currency').map((c) => c.toLowerCase()));
const CARD_ERROR_CODES = new Set(['expired_card', 'incorrect_cvc', 'incorrect_number', 'processing_error']);

const newId = (prefix: string) =>
  `${prefix}_test_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
const now = () => Math.floor(Date.now() / 1000);

class StripeHttpError extends Error {
  constructor(
    readonly status: number,
    readonly error: Obj,
  ) {
    super(error.message);
  }
}

const invalid = (message: string, param?: string, code?: string) =>
  new StripeHttpError(400, {
    type: 'invalid_request_error',
    message,
    ...(param && { param }),
    ...(code && { code }),
  });
const missing = (kind: string, id: string, param?: string) =>
  new StripeHttpError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such ${kind}: '${id}'`,
    ...(param && { param }),
  });

/** Stripe's form encoding (`a[b][c]=v`, `list[0]=v`, `list[]=v`) into nested objects and arrays. */
export function parseForm(text: string): Record<string, unknown> {
  const root: Obj = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const parts = rawKey.split('[').map((part, i) => (i === 0 ? part : part.replace(/\]$/, '')));
    let node: Obj = root;
    parts.forEach((part, i) => {
      const key = part === '' ? String(Object.keys(node).length) : part;
      if (i === parts.length - 1) node[key] = value;
      else node = node[key] ??= {};
    });
  }
  const arrays = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    const entries = Object.entries(value as Obj).map(([k, v]) => [k, arrays(v)] as const);
    const isList = entries.length > 0 && entries.every(([k], i) => k === String(i));
    return isList ? entries.map(([, v]) => v) : Object.fromEntries(entries);
  };
  return arrays(root) as Record<string, unknown>;
}

function integer(body: Obj, param: string, required = true): number | undefined {
  const raw = body[param];
  if (raw === undefined) {
    if (required) throw invalid(`Missing required param: ${param}.`, param, 'parameter_missing');
    return undefined;
  }
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) {
    throw invalid(`Invalid integer: ${String(raw)}`, param, 'parameter_invalid_integer');
  }
  return Number(raw);
}

function requiredString(body: Obj, param: string): string {
  const value = body[param];
  if (typeof value !== 'string' || value === '') {
    throw invalid(`Missing required param: ${param}.`, param, 'parameter_missing');
  }
  return value;
}

function currencyOf(body: Obj, param = 'currency'): string {
  const value = requiredString(body, param);
  if (!/^[a-z]{3}$/.test(value) || !CURRENCIES.has(value)) {
    throw invalid(
      `Invalid currency: ${value}. Stripe currently supports these currencies: usd, eur, gbp, …`,
      param,
    );
  }
  return value;
}

function metadataOf(body: Obj): Obj {
  const metadata = body.metadata ?? {};
  if (typeof metadata !== 'object') throw invalid('Invalid object', 'metadata');
  return { ...metadata };
}

function checkUrl(body: Obj, param: string, required: boolean): string | null {
  const value = body[param];
  if (value === undefined && !required) return null;
  if (typeof value !== 'string')
    throw invalid(`Missing required param: ${param}.`, param, 'parameter_missing');
  try {
    new URL(value.replace('{CHECKOUT_SESSION_ID}', 'x'));
  } catch {
    throw invalid(`Not a valid URL`, param, 'url_invalid');
  }
  return value;
}

/** Stripe's amount rules for charges: three-decimal last digit 0, ISK in whole krónur, the minimum. */
function checkChargeAmount(amount: number, currency: string, param: string) {
  if (amount < 1) throw invalid('This value must be greater than or equal to 1.', param);
  if (THREE_DECIMAL.has(currency) && amount % 10 !== 0) {
    throw invalid(`Invalid amount: ${currency.toUpperCase()} amounts must have 0 as the last digit.`, param);
  }
  if (currency === 'isk' && amount % 100 !== 0) {
    throw invalid(
      'Invalid amount. Currency ISK has become effectively zero-decimal and charged amounts must be evenly divisible by 100.',
      param,
      'invalid_charge_amount_no_decimal_compatible',
    );
  }
  const minimum = STRIPE_MINIMUM_CHARGE[currency.toUpperCase()];
  if (minimum !== undefined && amount < minimum) {
    const major = ZERO_DECIMAL.has(currency) ? String(minimum) : (minimum / 100).toFixed(2);
    throw invalid(`Amount must be at least ${major} ${currency}`, param, 'amount_too_small');
  }
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

function displayAmount(amount: number, currency: string): string {
  const digits = ZERO_DECIMAL.has(currency) ? 0 : THREE_DECIMAL.has(currency) ? 3 : 2;
  const major =
    digits === 0
      ? String(amount)
      : `${Math.trunc(amount / 10 ** digits)}.${String(amount % 10 ** digits).padStart(digits, '0')}`;
  return `${currency.toUpperCase()} ${major}`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startStripeFake(options: StripeFakeOptions = {}): Promise<StripeFake> {
  const secretKey = options.secretKey ?? 'sk_test_paytrack_fake';
  const webhookSecret = options.webhookSecret ?? 'whsec_paytrack_fake';
  const requests: LoggedRequest[] = [];
  const customers = new Map<string, Obj>();
  const paymentMethods = new Map<string, Obj>();
  const setupIntents = new Map<string, Obj>();
  const paymentIntents = new Map<string, Obj>();
  const sessions = new Map<string, Obj>();
  const refunds = new Map<string, Obj>();
  const events: Obj[] = [];
  const chargeQueue: StripeChargeOutcome[] = [];
  const idempotent = new Map<string, { fingerprint: string; status: number; body: string }>();
  const held = new Set<() => void>();
  let baseUrl = '';

  const byId = (id: string): Obj | undefined =>
    customers.get(id) ??
    paymentMethods.get(id) ??
    setupIntents.get(id) ??
    paymentIntents.get(id) ??
    sessions.get(id) ??
    refunds.get(id);

  /** A copy of `object` with the `expand[]` paths (`setup_intent.payment_method`) replaced by their objects. */
  function expanded(object: Obj, paths: string[]): Obj {
    const copy = structuredClone(object);
    for (const path of paths) {
      const steps = path.split('.');
      let node: Obj | undefined = copy;
      for (const step of steps) {
        if (!node) break;
        const value = node[step];
        if (typeof value === 'string') {
          const target = byId(value);
          if (target) node[step] = structuredClone(target);
        }
        node = typeof node[step] === 'object' ? node[step] : undefined;
      }
    }
    return copy;
  }

  function sign(body: string, at = new Date()): Record<string, string> {
    const t = Math.floor(at.getTime() / 1000);
    const v1 = createHmac('sha256', webhookSecret).update(`${t}.${body}`).digest('hex');
    return { 'Content-Type': 'application/json; charset=utf-8', 'Stripe-Signature': `t=${t},v1=${v1}` };
  }

  /** Records an event with Stripe's envelope and signs it; POSTs it to `webhookUrl` when one is set. */
  async function emit(type: string, object: Obj): Promise<SignedWebhook> {
    const event = {
      id: newId('evt'),
      object: 'event',
      api_version: API_VERSION,
      created: now(),
      data: { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: options.webhookUrl ? 1 : 0,
      request: { id: null, idempotency_key: null },
      type,
    };
    events.push(event);
    const body = JSON.stringify(event);
    const webhook = { body, headers: sign(body) };
    if (options.webhookUrl) {
      await fetch(options.webhookUrl, { method: 'POST', headers: webhook.headers, body }).then(
        (response) => response.arrayBuffer(),
        () => undefined,
      );
    }
    return webhook;
  }

  function createPaymentMethod(
    type: PaymentMethodType,
    customer: string | null,
    bank?: string,
    last4 = '4242',
  ) {
    const details: Record<PaymentMethodType, Obj> = {
      card: { brand: bank ?? 'visa', last4, exp_month: 12, exp_year: 2034, country: 'US', funding: 'credit' },
      sepa_debit: {
        bank_code: bank ?? '37040044',
        branch_code: null,
        country: 'DE',
        last4,
        fingerprint: 'fp',
      },
      bacs_debit: { sort_code: bank ?? '108800', last4, fingerprint: 'fp' },
      us_bank_account: { bank_name: bank ?? 'STRIPE TEST BANK', last4, account_type: 'checking' },
    };
    const method = {
      id: newId('pm'),
      object: 'payment_method',
      type,
      customer,
      created: now(),
      livemode: false,
      metadata: {},
      [type]: details[type],
    };
    paymentMethods.set(method.id, method);
    return method;
  }

  function newPaymentIntent(fields: Obj): Obj {
    const intent = {
      id: newId('pi'),
      object: 'payment_intent',
      amount_received: 0,
      created: now(),
      livemode: false,
      last_payment_error: null,
      latest_charge: null,
      next_action: null,
      ...fields,
    };
    paymentIntents.set(intent.id, intent);
    return intent;
  }

  function succeed(intent: Obj) {
    intent.status = 'succeeded';
    intent.amount_received = intent.amount;
    intent.latest_charge = newId('ch');
    intent.last_payment_error = null;
  }

  // --- API endpoints --------------------------------------------------------------------------------------------

  function createCustomer(body: Obj) {
    if (body.email !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(String(body.email))) {
      throw invalid(`Invalid email address: ${body.email}`, 'email', 'email_invalid');
    }
    const customer = {
      id: newId('cus'),
      object: 'customer',
      name: body.name ?? null,
      email: body.email ?? null,
      metadata: metadataOf(body),
      created: now(),
      livemode: false,
    };
    customers.set(customer.id, customer);
    return customer;
  }

  function createSession(body: Obj) {
    const mode = requiredString(body, 'mode');
    if (!['payment', 'setup', 'subscription'].includes(mode)) throw invalid(`Invalid mode: ${mode}`, 'mode');
    const successUrl = checkUrl(body, 'success_url', false);
    const cancelUrl = checkUrl(body, 'cancel_url', false);
    const customer = body.customer as string | undefined;
    if (customer !== undefined && !customers.has(customer)) throw missing('customer', customer, 'customer');
    if (body.customer_email !== undefined && customer !== undefined) {
      throw invalid(
        'You may only specify one of these parameters: customer, customer_email.',
        'customer_email',
      );
    }
    const id = newId('cs');
    const session: Obj = {
      id,
      object: 'checkout.session',
      mode,
      status: 'open',
      payment_status: mode === 'setup' ? 'no_payment_required' : 'unpaid',
      url: `${baseUrl}/c/pay/${id}`,
      success_url: successUrl,
      cancel_url: cancelUrl,
      client_reference_id: body.client_reference_id ?? null,
      customer: customer ?? null,
      customer_email: body.customer_email ?? null,
      metadata: metadataOf(body),
      created: now(),
      expires_at: now() + 24 * 3600,
      livemode: false,
      payment_intent: null,
      setup_intent: null,
      amount_total: null,
      currency: null,
    };
    if (mode === 'setup') {
      if (body.allowed_payment_method_types === undefined) session.currency = currencyOf(body);
      const intent = {
        id: newId('seti'),
        object: 'setup_intent',
        status: 'requires_payment_method',
        customer: session.customer,
        payment_method: null,
        usage: 'off_session',
        metadata: { ...(body.setup_intent_data?.metadata ?? {}) },
        last_setup_error: null,
        created: now(),
        livemode: false,
      };
      setupIntents.set(intent.id, intent);
      session.setup_intent = intent.id;
    } else if (mode === 'payment') {
      const items = body.line_items;
      if (!Array.isArray(items) || items.length === 0) {
        throw invalid('Missing required param: line_items.', 'line_items', 'parameter_missing');
      }
      let total = 0;
      let currency: string | null = null;
      items.forEach((item: Obj, i: number) => {
        const data = item.price_data;
        if (!data)
          throw invalid('Missing required param: line_items[0][price_data].', `line_items[${i}][price_data]`);
        const itemCurrency = currencyOf(data, 'currency');
        const unit = integer(data, 'unit_amount') as number;
        if (!data.product_data?.name) {
          throw invalid(
            `Missing required param: line_items[${i}][price_data][product_data][name].`,
            `line_items[${i}][price_data][product_data][name]`,
            'parameter_missing',
          );
        }
        const quantity = integer(item, 'quantity') as number;
        total += unit * quantity;
        currency = itemCurrency;
      });
      checkChargeAmount(total, currency!, 'line_items[0][price_data][unit_amount]');
      session.amount_total = total;
      session.amount_subtotal = total;
      session.currency = currency;
      session.payment_intent_metadata = { ...(body.payment_intent_data?.metadata ?? {}) };
    } else {
      throw invalid('The fake serves payment and setup mode only.', 'mode');
    }
    sessions.set(id, session);
    return session;
  }

  function publicSession(session: Obj) {
    const { payment_intent_metadata: _hidden, ...visible } = session;
    return visible;
  }

  async function createPaymentIntent(body: Obj): Promise<{ status: number; body: Obj; hold?: boolean }> {
    const amount = integer(body, 'amount') as number;
    const currency = currencyOf(body);
    checkChargeAmount(amount, currency, 'amount');
    const customer = body.customer as string | undefined;
    if (customer !== undefined && !customers.has(customer)) throw missing('customer', customer, 'customer');
    const methodId = body.payment_method as string | undefined;
    const method = methodId === undefined ? undefined : paymentMethods.get(methodId);
    if (methodId !== undefined && !method) throw missing('payment_method', methodId, 'payment_method');
    if (method?.customer && customer && method.customer !== customer) {
      throw invalid(`The provided PaymentMethod belongs to a different customer.`, 'payment_method');
    }
    const confirm = body.confirm === 'true';
    if (confirm && !method) throw invalid('You must provide a payment_method to confirm.', 'payment_method');
    if (
      confirm &&
      body.return_url === undefined &&
      body.automatic_payment_methods?.allow_redirects !== 'never'
    ) {
      throw invalid(
        "This PaymentIntent is configured to accept payment methods enabled in your Dashboard. Because some of these payment methods might redirect your customer off of your page, you must provide a `return_url`. If you don't want to accept redirect-based payment methods, set `automatic_payment_methods[enabled]` to `true` and `automatic_payment_methods[allow_redirects]` to `never` when creating Setup Intents and Payment Intents.",
        'return_url',
      );
    }
    const outcome =
      chargeQueue.shift() ?? (method && method.type !== 'card' && confirm ? 'processing' : 'success');
    if (typeof outcome === 'object' && 'status' in outcome) {
      const body =
        outcome.status === 429
          ? { type: 'invalid_request_error', code: 'rate_limit', message: 'Request rate limit exceeded.' }
          : { type: 'api_error', message: 'An unknown error occurred' };
      return { status: outcome.status, body: { error: body } };
    }
    const intent = newPaymentIntent({
      amount,
      currency,
      customer: customer ?? null,
      payment_method: methodId ?? null,
      payment_method_types: [method?.type ?? 'card'],
      metadata: metadataOf(body),
      status: confirm ? 'processing' : 'requires_confirmation',
    });
    if (!confirm) return { status: 200, body: intent };
    if (outcome === 'success' || outcome === 'timeout') succeed(intent);
    else if (outcome === 'processing') intent.status = 'processing';
    else {
      const declineCode = outcome.decline;
      const code =
        declineCode === 'authentication_required' || CARD_ERROR_CODES.has(declineCode)
          ? declineCode
          : 'card_declined';
      const error = {
        type: 'card_error',
        code,
        decline_code: declineCode,
        message:
          declineCode === 'authentication_required'
            ? 'Your card was declined. This transaction requires authentication.'
            : 'Your card was declined.',
        payment_method: method,
      };
      intent.status = 'requires_payment_method';
      intent.last_payment_error = error;
      await emit('payment_intent.payment_failed', intent);
      return { status: 402, body: { error: { ...error, payment_intent: structuredClone(intent) } } };
    }
    await emit(
      intent.status === 'succeeded' ? 'payment_intent.succeeded' : 'payment_intent.processing',
      intent,
    );
    return { status: 200, body: intent, hold: outcome === 'timeout' };
  }

  /** The search queries the adapter sends: `metadata['key']:'value'` clauses joined by AND, and `status:'x'`. */
  function searchPaymentIntents(query: Obj) {
    const text = String(query.query ?? '');
    if (!text) throw invalid('Missing required param: query.', 'query', 'parameter_missing');
    const clauses = text.split(/\s+AND\s+/);
    const tests = clauses.map((clause) => {
      const meta = /^metadata\[(['"])(.+?)\1\]:(['"])((?:\\.|(?!\3).)*)\3$/.exec(clause);
      if (meta) {
        const value = meta[4]!.replace(/\\(.)/g, '$1');
        return (intent: Obj) => intent.metadata?.[meta[2]!] === value;
      }
      const status = /^status:(['"])(\w+)\1$/.exec(clause);
      if (status) return (intent: Obj) => intent.status === status[2];
      throw invalid(`Invalid query: ${text}`, 'query');
    });
    const limit = integer(query, 'limit', false) ?? 10;
    const data = [...paymentIntents.values()].filter((intent) => tests.every((t) => t(intent))).reverse();
    return {
      object: 'search_result',
      data: data.slice(0, limit),
      has_more: data.length > limit,
      next_page: null,
      url: '/v1/payment_intents/search',
    };
  }

  function createRefund(body: Obj) {
    const intentId = requiredString(body, 'payment_intent');
    const intent = paymentIntents.get(intentId);
    if (!intent) throw missing('payment_intent', intentId, 'payment_intent');
    if (intent.status !== 'succeeded') {
      throw invalid(
        `This PaymentIntent (${intentId}) does not have a successful charge to refund.`,
        'payment_intent',
        'charge_not_refundable',
      );
    }
    const refunded = [...refunds.values()]
      .filter((r) => r.payment_intent === intentId && r.status !== 'failed' && r.status !== 'canceled')
      .reduce((sum, r) => sum + r.amount, 0);
    const amount = integer(body, 'amount', false) ?? intent.amount - refunded;
    if (amount < 1) throw invalid('This value must be greater than or equal to 1.', 'amount');
    if (amount > intent.amount - refunded) {
      throw invalid(
        `Refund amount (${amount}) is greater than unrefunded amount on charge (${intent.amount - refunded})`,
        'amount',
        'amount_too_large',
      );
    }
    const refund = {
      id: newId('re'),
      object: 'refund',
      amount,
      currency: intent.currency,
      payment_intent: intentId,
      charge: intent.latest_charge,
      status: 'pending',
      failure_reason: undefined,
      metadata: metadataOf(body),
      created: now(),
      reason: body.reason ?? null,
    };
    refunds.set(refund.id, refund);
    void emit('refund.created', refund);
    return refund;
  }

  async function route(
    method: string,
    path: string,
    body: Obj,
    query: Obj,
  ): Promise<{ status: number; body: Obj; hold?: boolean }> {
    const expand = ((method === 'GET' ? query.expand : body.expand) ?? []) as string[];
    const idIn = (prefix: string) =>
      path.startsWith(prefix) && !path.slice(prefix.length).includes('/') ? path.slice(prefix.length) : null;
    const found = (map: Map<string, Obj>, kind: string, id: string) => {
      const object = map.get(id);
      if (!object) throw missing(kind, id);
      return { status: 200, body: expanded(map === sessions ? publicSession(object) : object, expand) };
    };
    if (method === 'POST' && path === '/v1/customers') return { status: 200, body: createCustomer(body) };
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      return { status: 200, body: publicSession(createSession(body)) };
    }
    if (method === 'POST' && path === '/v1/payment_intents') return createPaymentIntent(body);
    if (method === 'POST' && path === '/v1/refunds') return { status: 200, body: createRefund(body) };
    if (method === 'GET' && path === '/v1/payment_intents/search') {
      return { status: 200, body: searchPaymentIntents(query) };
    }
    if (method === 'GET') {
      const session = idIn('/v1/checkout/sessions/');
      if (session) return found(sessions, 'checkout.session', session);
      const setupIntent = idIn('/v1/setup_intents/');
      if (setupIntent) return found(setupIntents, 'setupintent', setupIntent);
      const paymentIntent = idIn('/v1/payment_intents/');
      if (paymentIntent) return found(paymentIntents, 'payment_intent', paymentIntent);
      const refund = idIn('/v1/refunds/');
      if (refund) return found(refunds, 'refund', refund);
    }
    throw new StripeHttpError(404, {
      type: 'invalid_request_error',
      message: `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    });
  }

  // --- hosted Checkout pages ------------------------------------------------------------------------------------

  function page(session: Obj): string {
    const setup = session.mode === 'setup';
    const title = setup
      ? 'Save a payment method'
      : `Pay ${displayAmount(session.amount_total, session.currency)}`;
    const options = (['card', 'sepa_debit'] as const)
      .map(
        (type, i) =>
          `<div><input type="radio" id="method-${type}" name="method" value="${type}"${i === 0 ? ' checked' : ''}><label for="method-${type}">${type === 'card' ? 'Card' : 'SEPA Direct Debit'}</label></div>`,
      )
      .join('');
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} – Stripe Checkout (test)</title></head>
<body><main>
<h1>${escapeHtml(title)}</h1>
<p>Paytrack test business${setup ? ' asks to debit this payment method for future payments.' : ''}</p>
<form method="post" action="/c/pay/${escapeHtml(session.id)}">
<fieldset><legend>Payment method</legend>${options}</fieldset>
<button type="submit" name="action" value="${setup ? 'authorize' : 'pay'}">${setup ? 'Authorize' : 'Pay'}</button>
<button type="submit" name="action" value="cancel">Cancel</button>
</form>
</main></body></html>`;
  }

  function openSession(id: string): Obj {
    const session = sessions.get(id);
    if (!session) throw missing('checkout.session', id);
    if (session.status !== 'open') throw invalid(`This Checkout Session is ${session.status}.`);
    return session;
  }

  async function completeAuthorization(
    sessionId: string,
    details: { type?: PaymentMethodType; bank?: string; last4?: string } = {},
  ): Promise<SignedWebhook[]> {
    const session = openSession(sessionId);
    if (session.mode !== 'setup') throw invalid('Not a setup-mode Checkout Session.');
    const intent = setupIntents.get(session.setup_intent)!;
    const method = createPaymentMethod(details.type ?? 'card', session.customer, details.bank, details.last4);
    intent.payment_method = method.id;
    intent.status = 'succeeded';
    session.status = 'complete';
    return [
      await emit('setup_intent.succeeded', intent),
      await emit('checkout.session.completed', publicSession(session)),
    ];
  }

  async function payCheckout(
    sessionId: string,
    details: { type?: PaymentMethodType } = {},
  ): Promise<SignedWebhook[]> {
    const session = openSession(sessionId);
    if (session.mode !== 'payment') throw invalid('Not a payment-mode Checkout Session.');
    const type = details.type ?? 'card';
    const method = createPaymentMethod(type, null);
    const intent = newPaymentIntent({
      amount: session.amount_total,
      currency: session.currency,
      customer: null,
      payment_method: method.id,
      payment_method_types: [type],
      metadata: { ...session.payment_intent_metadata },
      status: 'processing',
    });
    session.payment_intent = intent.id;
    session.status = 'complete';
    if (type === 'card') {
      succeed(intent);
      session.payment_status = 'paid';
      return [
        await emit('payment_intent.succeeded', intent),
        await emit('checkout.session.completed', publicSession(session)),
      ];
    }
    return [
      await emit('payment_intent.processing', intent),
      await emit('checkout.session.completed', publicSession(session)),
    ];
  }

  async function settleDebit(ref: string, outcome: 'success' | 'failed', failureCode = 'insufficient_funds') {
    const intent =
      paymentIntents.get(ref) ?? [...paymentIntents.values()].find((i) => i.metadata?.attempt_id === ref);
    if (!intent) throw missing('payment_intent', ref);
    if (intent.status !== 'processing')
      throw invalid(`This PaymentIntent is ${intent.status}, not processing.`);
    const session = [...sessions.values()].find((s) => s.payment_intent === intent.id);
    const webhooks: SignedWebhook[] = [];
    if (outcome === 'success') {
      succeed(intent);
      webhooks.push(await emit('payment_intent.succeeded', intent));
      if (session) {
        session.payment_status = 'paid';
        webhooks.push(await emit('checkout.session.async_payment_succeeded', publicSession(session)));
      }
    } else {
      intent.status = 'requires_payment_method';
      intent.last_payment_error = {
        type: 'card_error',
        code: failureCode,
        decline_code: failureCode,
        message: 'The bank returned the debit.',
      };
      webhooks.push(await emit('payment_intent.payment_failed', intent));
      if (session) webhooks.push(await emit('checkout.session.async_payment_failed', publicSession(session)));
    }
    return webhooks;
  }

  async function settleRefund(refundId: string, outcome: 'succeeded' | 'failed') {
    const refund = refunds.get(refundId);
    if (!refund) throw missing('refund', refundId);
    refund.status = outcome;
    if (outcome === 'failed') refund.failure_reason = 'expired_or_canceled_card';
    const webhooks = [await emit('refund.updated', refund)];
    if (outcome === 'failed') webhooks.push(await emit('refund.failed', refund));
    return webhooks;
  }

  // --- the server -----------------------------------------------------------------------------------------------

  function send(
    res: ServerResponse,
    status: number,
    body: Obj | string,
    headers: Record<string, string> = {},
  ) {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, {
      'Content-Type': typeof body === 'string' ? 'text/html; charset=utf-8' : 'application/json',
      'Request-Id': newId('req'),
      ...headers,
    });
    res.end(text);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', baseUrl);
    const method = req.method ?? 'GET';
    const raw = await readBody(req);
    const body = parseForm(raw) as Obj;
    const query = parseForm(url.search.slice(1)) as Obj;
    const idempotencyKey = (req.headers['idempotency-key'] as string | undefined) ?? null;
    requests.push({ method, path: url.pathname, body, query, idempotencyKey });

    const pagePath = /^\/c\/pay\/([^/]+)$/.exec(url.pathname);
    if (pagePath) {
      const session = sessions.get(pagePath[1]!);
      if (!session)
        return send(
          res,
          404,
          '<!doctype html><html lang="en"><body><main><h1>Not found</h1></main></body></html>',
        );
      if (method === 'GET') return send(res, 200, page(session));
      if (session.status !== 'open') return send(res, 409, page(session));
      if (body.action === 'cancel') {
        return send(res, 303, '', { Location: session.cancel_url ?? baseUrl });
      }
      const type = (body.method === 'sepa_debit' ? 'sepa_debit' : 'card') as PaymentMethodType;
      if (session.mode === 'setup') await completeAuthorization(session.id, { type });
      else await payCheckout(session.id, { type });
      const target = String(session.success_url ?? baseUrl).replace('{CHECKOUT_SESSION_ID}', session.id);
      return send(res, 303, '', { Location: target });
    }

    const auth = req.headers.authorization;
    if (!auth?.startsWith('Bearer ')) {
      return send(res, 401, {
        error: {
          type: 'invalid_request_error',
          message:
            "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
        },
      });
    }
    if (auth.slice(7) !== secretKey) {
      return send(res, 401, {
        error: {
          type: 'invalid_request_error',
          message: `Invalid API Key provided: ${auth.slice(7, 15)}****`,
        },
      });
    }

    const fingerprint = `${method} ${url.pathname} ${raw}`;
    if (method === 'POST' && idempotencyKey) {
      const saved = idempotent.get(idempotencyKey);
      if (saved && saved.fingerprint !== fingerprint) {
        return send(res, 400, {
          error: {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
          },
        });
      }
      if (saved)
        return send(res, saved.status, saved.body ? JSON.parse(saved.body) : {}, {
          'Idempotent-Replayed': 'true',
        });
    }

    let result: { status: number; body: Obj; hold?: boolean };
    try {
      result = await route(method, url.pathname, body, query);
    } catch (error) {
      if (!(error instanceof StripeHttpError)) throw error;
      // Stripe saves no idempotent result for a request that failed validation.
      return send(res, error.status, { error: error.error });
    }
    if (method === 'POST' && idempotencyKey && result.status !== 429 && result.status < 500) {
      idempotent.set(idempotencyKey, {
        fingerprint,
        status: result.status,
        body: JSON.stringify(result.body),
      });
    }
    if (result.hold) {
      await new Promise<void>((resolve) => {
        held.add(resolve);
        if (options.delayMs !== undefined) setTimeout(resolve, options.delayMs);
      });
      if (res.destroyed) return;
    }
    send(res, result.status, result.body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { error: { type: 'api_error', message: String(error) } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: baseUrl,
    secretKey,
    webhookSecret,
    requests,
    customers,
    paymentMethods,
    setupIntents,
    paymentIntents,
    sessions,
    refunds,
    events,
    nextCharge: (outcome) => void chargeQueue.push(outcome),
    completeAuthorization,
    payCheckout,
    settleDebit,
    settleRefund,
    sign,
    close: async () => {
      for (const release of held) release();
      held.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
