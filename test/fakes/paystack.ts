import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for Paystack's API (https://api.paystack.co), written from its API reference and the
 * doc-code-snippets its docs show: the `{ status, message, data }` envelope, its error answers, the hosted
 * authorization and checkout pages, and the webhooks it sends (`x-paystack-signature`, HMAC-SHA512 of the body
 * with the secret key).
 */

export type PaystackChargeOutcome =
  | 'success'
  | 'processing'
  | { decline: string }
  | 'timeout'
  | { status: 500 | 429 | 503 };

export interface PaystackFakeOptions {
  /** The secret key requests must carry (`Authorization: Bearer …`) and webhooks are signed with. */
  secretKey?: string;
  /** Where the fake POSTs the webhooks its scenario controls produce (awaited). */
  webhookUrl?: string;
  /** How long a `'timeout'` charge holds its answer; by default until the fake closes. */
  delayMs?: number;
}

export interface SentWebhook {
  body: string;
  headers: Record<string, string>;
}

export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
}

interface Customer {
  id: number;
  customer_code: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  authorizations: Authorization[];
}

interface Authorization {
  authorization_code: string;
  bin: string | null;
  last4: string | null;
  exp_month: string | null;
  exp_year: string | null;
  channel: string;
  card_type: string | null;
  bank: string | null;
  country_code: string;
  brand: string | null;
  reusable: boolean;
  signature: string | null;
  account_name: string | null;
  active: boolean;
  [extra: string]: unknown;
}

interface AuthorizationRequest {
  reference: string;
  access_code: string;
  email: string;
  callback_url: string | null;
  state: 'pending' | 'active' | 'cancelled';
  authorization: Authorization | null;
}

interface Transaction {
  id: number;
  reference: string;
  access_code: string | null;
  email: string;
  amount: number;
  currency: string;
  status: string;
  gateway_response: string;
  channel: string;
  metadata: unknown;
  callback_url: string | null;
  authorization: Authorization | null;
  created_at: string;
  paid_at: string | null;
}

interface DedicatedAccount {
  id: number;
  account_number: string;
  account_name: string;
  bank: { name: string; id: number; slug: string };
  customer_code: string;
}

interface Refund {
  id: number;
  transaction_reference: string;
  amount: number;
  currency: string;
  status: string;
}

export interface PaystackFake {
  /** The API root, no trailing slash: the adapter's `apiUrl`. */
  url: string;
  secretKey: string;
  requests: LoggedRequest[];
  /** Transactions created for a reference (charge, checkout, transfer): a reference is charged at most once. */
  transactionsFor(reference: string): number;
  nextCharge(outcome: PaystackChargeOutcome): void;
  completeAuthorization(
    reference: string,
    details?: { bank?: string; last4?: string },
  ): Promise<SentWebhook[]>;
  payCheckout(reference: string): Promise<SentWebhook[]>;
  transferToAccount(accountNumber: string, amount: number): Promise<SentWebhook[]>;
  settleDebit(reference: string, outcome: 'success' | 'failed'): Promise<SentWebhook[]>;
  settleRefund(reference: string, outcome: 'succeeded' | 'failed'): Promise<SentWebhook[]>;
  sign(body: string, at?: Date): Record<string, string>;
  close(): Promise<void>;
}

const CURRENCIES = new Set(['NGN', 'GHS', 'ZAR', 'KES', 'USD']);
const BANKS: Record<string, { name: string; id: number }> = {
  'test-bank': { name: 'Test Bank', id: 20 },
  'wema-bank': { name: 'Wema Bank', id: 20 },
  'titan-paystack': { name: 'Titan Paystack', id: 1 },
  'access-bank': { name: 'Access Bank', id: 1 },
};
const REFERENCE = /^[A-Za-z0-9.=-]+$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const token = (n: number) => randomBytes(n).toString('hex').slice(0, n);

class Answer {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

const fail = (status: number, message: string, extra: Record<string, unknown> = {}) =>
  new Answer(status, { status: false, message, ...extra });
const ok = (message: string, data: unknown) => new Answer(200, { status: true, message, data });

const missing = (what: string) =>
  fail(400, `${what} is required`, {
    meta: { nextStep: 'Provide all required params' },
    type: 'validation_error',
    code: 'missing_params',
  });

function amountOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  if (typeof value === 'string' && /^[1-9][0-9]*$/.test(value)) return Number(value);
  return null;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, lines: string[], actions: [string, string][]): string {
  const buttons = actions
    .map(([value, label]) => `<button type="submit" name="action" value="${value}">${label}</button>`)
    .join(' ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body><main><h1>${escapeHtml(title)}</h1>
${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n')}
<form method="post"><fieldset><legend>Your decision</legend>${buttons}</fieldset></form>
</main></body></html>`;
}

function majorUnits(amount: number, currency: string): string {
  return `${currency} ${(amount / 100).toLocaleString('en', { minimumFractionDigits: 2 })}`;
}

export async function startPaystackFake(options: PaystackFakeOptions = {}): Promise<PaystackFake> {
  const secretKey = options.secretKey ?? 'sk_test_paytrackfake0000000000000000000000';
  const requests: LoggedRequest[] = [];
  const outcomes: PaystackChargeOutcome[] = [];
  const customers = new Map<string, Customer>();
  const authorizationRequests = new Map<string, AuthorizationRequest>();
  const transactions = new Map<string, Transaction>();
  const accounts = new Map<string, DedicatedAccount>();
  const refunds = new Map<number, Refund>();
  const created = new Map<string, number>();
  let nextId = 1_504_238_000;
  let url = '';

  const now = () => new Date().toISOString();

  function customerFor(email: string): Customer {
    const existing = [...customers.values()].find((c) => c.email === email.toLowerCase());
    if (existing) return existing;
    const customer: Customer = {
      id: nextId++,
      customer_code: `CUS_${token(15)}`,
      email: email.toLowerCase(),
      first_name: null,
      last_name: null,
      phone: null,
      authorizations: [],
    };
    customers.set(customer.customer_code, customer);
    return customer;
  }

  function customerView(customer: Customer) {
    return {
      id: customer.id,
      first_name: customer.first_name,
      last_name: customer.last_name,
      email: customer.email,
      customer_code: customer.customer_code,
      phone: customer.phone,
      metadata: null,
      risk_action: 'default',
      international_format_phone: null,
    };
  }

  function transactionView(t: Transaction) {
    const customer = customerFor(t.email);
    return {
      id: t.id,
      domain: secretKey.startsWith('sk_test_') ? 'test' : 'live',
      status: t.status,
      reference: t.reference,
      receipt_number: null,
      amount: t.amount,
      message: null,
      gateway_response: t.gateway_response,
      paid_at: t.paid_at,
      created_at: t.created_at,
      channel: t.channel,
      currency: t.currency,
      ip_address: null,
      metadata: t.metadata ?? '',
      log: null,
      fees: t.status === 'success' ? 0 : null,
      fees_split: null,
      authorization: t.authorization ? authorizationView(t.authorization) : {},
      customer: customerView(customer),
      plan: null,
      split: {},
      order_id: null,
      paidAt: t.paid_at,
      createdAt: t.created_at,
      requested_amount: t.amount,
      pos_transaction_data: null,
      source: null,
      fees_breakdown: null,
      transaction_date: t.created_at,
      plan_object: {},
      subaccount: {},
    };
  }

  function authorizationView(a: Authorization) {
    const { active: _active, ...view } = a;
    return view;
  }

  function sign(body: string): Record<string, string> {
    return {
      'content-type': 'application/json',
      'x-paystack-signature': createHmac('sha512', secretKey).update(body).digest('hex'),
    };
  }

  async function send(events: unknown[]): Promise<SentWebhook[]> {
    const sent = events.map((event) => {
      const body = JSON.stringify(event);
      return { body, headers: sign(body) };
    });
    if (options.webhookUrl) {
      for (const webhook of sent) {
        await fetch(options.webhookUrl, { method: 'POST', headers: webhook.headers, body: webhook.body });
      }
    }
    return sent;
  }

  function chargeSuccessEvent(t: Transaction) {
    const {
      receipt_number: _r,
      createdAt: _c,
      transaction_date: _d,
      plan_object: _p,
      ...data
    } = transactionView(t);
    return {
      event: 'charge.success',
      data: {
        ...data,
        plan: {},
        subaccount: {},
        source: { type: 'api', source: 'merchant_api', entry_point: 'charge', identifier: null },
      },
    };
  }

  function record(t: Omit<Transaction, 'id' | 'created_at'>): Transaction {
    const transaction: Transaction = { ...t, id: nextId++, created_at: now() };
    transactions.set(transaction.reference, transaction);
    created.set(transaction.reference, (created.get(transaction.reference) ?? 0) + 1);
    return transaction;
  }

  /** A reference may be passed once; a used one is refused as Paystack refuses it. */
  function checkReference(reference: unknown): Answer | string | null {
    if (reference === undefined) return null;
    if (typeof reference !== 'string' || !REFERENCE.test(reference)) {
      return fail(
        400,
        'Invalid transaction reference: only -, ., = and alphanumeric characters are allowed',
        {
          type: 'validation_error',
        },
      );
    }
    if (transactions.has(reference)) {
      return fail(400, 'Duplicate Transaction Reference', {
        meta: { nextStep: 'Try and create the Transaction or Charge with a new reference' },
        type: 'validation_error',
        code: 'duplicate_reference',
        errorCodeMappingNotFound: false,
      });
    }
    return reference;
  }

  function checkPayment(
    body: Record<string, unknown>,
  ): Answer | { email: string; amount: number; currency: string } {
    if (body.email === undefined || body.email === '') return missing('Email Address');
    if (typeof body.email !== 'string' || !EMAIL.test(body.email)) {
      return fail(400, 'Invalid Email Address Passed', { type: 'validation_error' });
    }
    if (body.amount === undefined) return missing('Amount');
    const amount = amountOf(body.amount);
    if (amount === null) return fail(400, 'Invalid Amount Sent', { type: 'validation_error' });
    const currency = body.currency === undefined ? 'NGN' : body.currency;
    if (typeof currency !== 'string' || !CURRENCIES.has(currency)) {
      return fail(400, 'Currency not supported by merchant', { type: 'validation_error' });
    }
    return { email: body.email, amount, currency };
  }

  // --- API routes -----------------------------------------------------------------------------------------

  function initializeAuthorization(body: Record<string, unknown>): Answer {
    if (body.email === undefined || body.email === '') return missing('Email Address');
    if (typeof body.email !== 'string' || !EMAIL.test(body.email)) {
      return fail(400, 'Invalid Email Address Passed', { type: 'validation_error' });
    }
    if (body.channel !== 'direct_debit') {
      return fail(400, 'channel must be direct_debit', { type: 'validation_error' });
    }
    const request: AuthorizationRequest = {
      reference: token(30),
      access_code: token(15),
      email: body.email.toLowerCase(),
      callback_url: typeof body.callback_url === 'string' ? body.callback_url : null,
      state: 'pending',
      authorization: null,
    };
    authorizationRequests.set(request.reference, request);
    customerFor(request.email);
    return ok('Authorization initialized', {
      redirect_url: `${url}/authorize/${request.access_code}`,
      access_code: request.access_code,
      reference: request.reference,
    });
  }

  function verifyAuthorization(reference: string): Answer {
    const request = authorizationRequests.get(reference);
    if (!request?.authorization) {
      return fail(404, 'Authorization does not exist or does not belong to integration', {
        metadata: { nextStep: 'Try again later' },
        type: 'api_error',
        code: 'unknown',
      });
    }
    const customer = customerFor(request.email);
    return ok('Authorization retrieved successfully', {
      authorization_code: request.authorization.authorization_code,
      channel: 'direct_debit',
      bank: request.authorization.bank,
      active: request.authorization.active,
      customer: { code: customer.customer_code, email: customer.email },
    });
  }

  async function chargeAuthorization(body: Record<string, unknown>): Promise<Answer | null> {
    const payment = checkPayment(body);
    if (payment instanceof Answer) return payment;
    if (typeof body.authorization_code !== 'string' || body.authorization_code === '') {
      return missing('Authorization code');
    }
    const reference = checkReference(body.reference);
    if (reference instanceof Answer) return reference;
    const owner = [...customers.values()].find((c) =>
      c.authorizations.some((a) => a.authorization_code === body.authorization_code),
    );
    const authorization = owner?.authorizations.find((a) => a.authorization_code === body.authorization_code);
    if (!owner || !authorization?.active) {
      return fail(400, 'Authorization code does not exist or has been deactivated', {
        type: 'validation_error',
      });
    }
    if (owner.email !== payment.email.toLowerCase()) {
      return fail(
        400,
        'Email does not match Authorization code. Authorization may be inactive or belong to a different email. Please confirm.',
        { type: 'validation_error' },
      );
    }
    if (!authorization.reusable)
      return fail(400, 'This authorization is not reusable', { type: 'validation_error' });
    const outcome = outcomes.shift() ?? 'success';
    if (typeof outcome === 'object' && 'status' in outcome) {
      return fail(outcome.status, outcome.status === 429 ? 'Too many requests' : 'An error occurred');
    }
    let metadata: unknown = body.metadata ?? '';
    if (typeof metadata === 'string' && metadata.startsWith('{')) metadata = JSON.parse(metadata);
    const settled = outcome === 'success' || outcome === 'timeout';
    const declined = typeof outcome === 'object' ? outcome.decline : null;
    const transaction = record({
      reference: reference ?? token(15),
      access_code: null,
      email: payment.email,
      amount: payment.amount,
      currency: payment.currency,
      status: settled ? 'success' : declined ? 'failed' : 'processing',
      gateway_response: settled ? 'Approved' : (declined ?? 'Transaction in progress'),
      channel: authorization.channel,
      metadata,
      callback_url: null,
      authorization,
      paid_at: settled ? now() : null,
    });
    if (outcome === 'timeout') {
      // Recorded: the charge exists. The answer comes later than the client waits, if at all.
      if (options.delayMs !== undefined) {
        await new Promise((resolve) => setTimeout(resolve, options.delayMs));
        return ok('Charge attempted', transactionView(transaction));
      }
      return null;
    }
    return ok('Charge attempted', transactionView(transaction));
  }

  function initializeTransaction(body: Record<string, unknown>): Answer {
    const payment = checkPayment(body);
    if (payment instanceof Answer) return payment;
    const reference = checkReference(body.reference);
    if (reference instanceof Answer) return reference;
    const transaction = record({
      reference: reference ?? token(10),
      access_code: token(15),
      email: payment.email,
      amount: payment.amount,
      currency: payment.currency,
      status: 'abandoned',
      gateway_response: 'The transaction was not completed',
      channel: 'card',
      metadata: body.metadata ?? '',
      callback_url: typeof body.callback_url === 'string' ? body.callback_url : null,
      authorization: null,
      paid_at: null,
    });
    customerFor(payment.email);
    return ok('Authorization URL created', {
      authorization_url: `${url}/checkout/${transaction.access_code}`,
      access_code: transaction.access_code,
      reference: transaction.reference,
    });
  }

  function verifyTransaction(reference: string): Answer {
    const transaction = transactions.get(reference);
    if (!transaction) return fail(404, 'Transaction reference not found');
    return ok('Verification successful', transactionView(transaction));
  }

  function createCustomer(body: Record<string, unknown>): Answer {
    if (body.email === undefined || body.email === '') return missing('Email Address');
    if (typeof body.email !== 'string' || !EMAIL.test(body.email)) {
      return fail(400, 'Invalid Email Address Passed', { type: 'validation_error' });
    }
    const customer = customerFor(body.email);
    for (const field of ['first_name', 'last_name', 'phone'] as const) {
      if (typeof body[field] === 'string') customer[field] = body[field];
    }
    const { authorizations: _a, ...data } = customer;
    return ok('Customer created', { ...data, integration: 100032, domain: 'test', identified: false });
  }

  function fetchCustomer(emailOrCode: string): Answer {
    const customer =
      customers.get(emailOrCode) ??
      [...customers.values()].find((c) => c.email === emailOrCode.toLowerCase());
    if (!customer) return fail(404, 'Customer not found');
    return ok('Customer retrieved', {
      ...customerView(customer),
      transactions: [],
      subscriptions: [],
      authorizations: customer.authorizations.filter((a) => a.active).map(authorizationView),
    });
  }

  function createDedicatedAccount(body: Record<string, unknown>): Answer {
    if (typeof body.customer !== 'string' && typeof body.customer !== 'number') return missing('Customer');
    const customer =
      customers.get(String(body.customer)) ??
      [...customers.values()].find((c) => c.id === Number(body.customer));
    if (!customer) return fail(404, 'Customer not found');
    if (!customer.first_name || !customer.last_name || !customer.phone) {
      return fail(400, 'Customer first name, last name and phone number are required', {
        type: 'validation_error',
      });
    }
    const slug = typeof body.preferred_bank === 'string' ? body.preferred_bank : 'wema-bank';
    const bank = BANKS[slug];
    if (!bank) return fail(400, 'Invalid preferred bank', { type: 'validation_error' });
    const account: DedicatedAccount = {
      id: nextId++,
      account_number: `99${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`,
      account_name: `PAYTRACK/${customer.first_name} ${customer.last_name}`.toUpperCase(),
      bank: { ...bank, slug },
      customer_code: customer.customer_code,
    };
    accounts.set(account.account_number, account);
    return ok('NUBAN successfully created', {
      bank: account.bank,
      account_name: account.account_name,
      account_number: account.account_number,
      assigned: true,
      currency: 'NGN',
      metadata: null,
      active: true,
      id: account.id,
      created_at: now(),
      updated_at: now(),
      assignment: {
        integration: 100043,
        assignee_id: customer.id,
        assignee_type: 'Customer',
        expired: false,
        account_type: 'PAY-WITH-TRANSFER-RECURRING',
        assigned_at: now(),
      },
      customer: customerView(customer),
    });
  }

  function createRefund(body: Record<string, unknown>): Answer {
    if (body.transaction === undefined || body.transaction === '') return missing('Transaction');
    const transaction =
      transactions.get(String(body.transaction)) ??
      [...transactions.values()].find((t) => t.id === Number(body.transaction));
    if (!transaction) return fail(404, 'Transaction reference not found');
    if (transaction.status !== 'success' && transaction.status !== 'reversed') {
      return fail(400, 'Cannot refund a transaction that was not successful', { type: 'validation_error' });
    }
    const refunded = [...refunds.values()]
      .filter((r) => r.transaction_reference === transaction.reference && r.status !== 'failed')
      .reduce((sum, r) => sum + r.amount, 0);
    const amount = body.amount === undefined ? transaction.amount - refunded : amountOf(body.amount);
    if (amount === null || amount <= 0) return fail(400, 'Invalid Amount Sent', { type: 'validation_error' });
    if (amount + refunded > transaction.amount) {
      return fail(400, 'Refund amount cannot be more than the transaction amount', {
        type: 'validation_error',
      });
    }
    const refund: Refund = {
      id: nextId++,
      transaction_reference: transaction.reference,
      amount,
      currency: transaction.currency,
      status: 'pending',
    };
    refunds.set(refund.id, refund);
    return ok('Refund has been queued for processing', {
      transaction: {
        id: transaction.id,
        domain: 'test',
        reference: transaction.reference,
        amount: transaction.amount,
        paid_at: transaction.paid_at,
        channel: transaction.channel,
        currency: transaction.currency,
      },
      integration: 412829,
      deducted_amount: 0,
      channel: null,
      merchant_note: typeof body.merchant_note === 'string' ? body.merchant_note : null,
      customer_note: `Refund for transaction ${transaction.reference}`,
      status: refund.status,
      refunded_by: 'api',
      expected_at: now(),
      currency: refund.currency,
      domain: 'test',
      amount: refund.amount,
      fully_deducted: false,
      id: refund.id,
      createdAt: now(),
      updatedAt: now(),
    });
  }

  // --- hosted pages ---------------------------------------------------------------------------------------

  function redirect(res: ServerResponse, location: string) {
    res.writeHead(303, { location }).end();
  }

  function withQuery(base: string, query: Record<string, string>): string {
    const target = new URL(base);
    for (const [key, value] of Object.entries(query)) target.searchParams.set(key, value);
    return target.toString();
  }

  async function authorizationPage(
    req: IncomingMessage,
    res: ServerResponse,
    accessCode: string,
    form: string,
  ) {
    const request = [...authorizationRequests.values()].find((r) => r.access_code === accessCode);
    if (!request) return html(res, 404, page('Authorization not found', ['This link is not valid.'], []));
    if (req.method === 'GET') {
      return html(
        res,
        200,
        page(
          'Authorize direct debit',
          [`Paytrack test business asks to debit the bank account of ${request.email}.`],
          [
            ['authorize', 'Authorize'],
            ['cancel', 'Cancel'],
          ],
        ),
      );
    }
    if (new URLSearchParams(form).get('action') === 'authorize')
      await completeAuthorization(request.reference);
    else request.state = request.state === 'pending' ? 'cancelled' : request.state;
    return request.callback_url ? redirect(res, request.callback_url) : html(res, 200, page('Done', [], []));
  }

  async function checkoutPage(req: IncomingMessage, res: ServerResponse, accessCode: string, form: string) {
    const transaction = [...transactions.values()].find((t) => t.access_code === accessCode);
    if (!transaction) return html(res, 404, page('Payment not found', ['This link is not valid.'], []));
    if (req.method === 'GET') {
      return html(
        res,
        200,
        page(
          'Pay Paytrack test business',
          [`Amount: ${majorUnits(transaction.amount, transaction.currency)}`, `Email: ${transaction.email}`],
          [
            ['pay', 'Pay'],
            ['cancel', 'Cancel'],
          ],
        ),
      );
    }
    if (new URLSearchParams(form).get('action') === 'pay') await payCheckout(transaction.reference);
    const query = { trxref: transaction.reference, reference: transaction.reference };
    return transaction.callback_url
      ? redirect(res, withQuery(transaction.callback_url, query))
      : html(res, 200, page('Done', [], []));
  }

  function html(res: ServerResponse, status: number, body: string) {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  }

  // --- scenario controls ----------------------------------------------------------------------------------

  async function completeAuthorization(reference: string, details: { bank?: string; last4?: string } = {}) {
    const request = authorizationRequests.get(reference);
    if (!request) throw new Error(`no authorization request ${reference}`);
    const customer = customerFor(request.email);
    const authorization: Authorization = {
      authorization_code: `AUTH_${token(10)}`,
      bin: null,
      last4: details.last4 ?? '1234',
      exp_month: null,
      exp_year: null,
      channel: 'direct_debit',
      card_type: 'mandate',
      bank: details.bank ?? 'Test Bank',
      country_code: 'NG',
      brand: details.bank ?? 'Test Bank',
      reusable: true,
      signature: `SIG_${token(20)}`,
      account_name: null,
      active: true,
    };
    request.state = 'active';
    request.authorization = authorization;
    customer.authorizations.push(authorization);
    const { active: _a, ...fields } = authorization;
    return send([
      {
        event: 'direct_debit.authorization.active',
        data: {
          ...fields,
          active: true,
          integration: 191390,
          domain: 'test',
          reference: request.reference,
          customer: {
            first_name: customer.first_name,
            last_name: customer.last_name,
            code: customer.customer_code,
            email: customer.email,
            phone: customer.phone ?? '',
            metadata: null,
            risk_action: 'default',
          },
        },
      },
    ]);
  }

  async function payCheckout(reference: string) {
    const transaction = transactions.get(reference);
    if (!transaction?.access_code) throw new Error(`no checkout ${reference}`);
    if (transaction.status === 'success') return [];
    const customer = customerFor(transaction.email);
    Object.assign(transaction, {
      status: 'success',
      gateway_response: 'Successful',
      channel: 'card',
      paid_at: now(),
      authorization: {
        authorization_code: `AUTH_${token(10)}`,
        bin: '408408',
        last4: '4081',
        exp_month: '12',
        exp_year: '2030',
        channel: 'card',
        card_type: 'visa ',
        bank: 'TEST BANK',
        country_code: 'NG',
        brand: 'visa',
        reusable: true,
        signature: `SIG_${token(20)}`,
        account_name: null,
        active: true,
      },
    });
    customer.authorizations.push(transaction.authorization!);
    return send([chargeSuccessEvent(transaction)]);
  }

  async function transferToAccount(accountNumber: string, amount: number) {
    const account = accounts.get(accountNumber);
    if (!account) throw new Error(`no dedicated account ${accountNumber}`);
    const customer = customers.get(account.customer_code)!;
    const transaction = record({
      reference: `T${Date.now()}${token(6)}`,
      access_code: null,
      email: customer.email,
      amount,
      currency: 'NGN',
      status: 'success',
      gateway_response: 'Approved',
      channel: 'dedicated_nuban',
      metadata: '',
      callback_url: null,
      authorization: {
        authorization_code: `AUTH_${token(10)}`,
        bin: '413XXX',
        last4: 'X011',
        exp_month: '01',
        exp_year: '2020',
        channel: 'dedicated_nuban',
        card_type: 'transfer',
        bank: 'First City Monument Bank',
        country_code: 'NG',
        brand: 'Managed Account',
        reusable: false,
        signature: null,
        account_name: null,
        sender_bank: 'First City Monument Bank',
        sender_bank_account_number: 'XXXXXX0011',
        sender_country: 'NG',
        sender_name: 'RANDALL AKANBI HORTON',
        narration: `NIP: ${account.account_name}`,
        receiver_bank_account_number: account.account_number,
        receiver_bank: account.bank.name,
        active: false,
      },
      paid_at: now(),
    });
    return send([chargeSuccessEvent(transaction)]);
  }

  async function settleDebit(reference: string, outcome: 'success' | 'failed') {
    const transaction = transactions.get(reference);
    if (transaction?.status !== 'processing') throw new Error(`no processing debit ${reference}`);
    if (outcome === 'failed') {
      // Paystack sends events for successful transactions only: a failed debit shows in Verify Transaction.
      Object.assign(transaction, { status: 'failed', gateway_response: 'Insufficient Funds' });
      return [];
    }
    Object.assign(transaction, { status: 'success', gateway_response: 'Payment successful', paid_at: now() });
    return send([chargeSuccessEvent(transaction)]);
  }

  async function settleRefund(reference: string, outcome: 'succeeded' | 'failed') {
    const refund =
      refunds.get(Number(reference)) ??
      [...refunds.values()].find((r) => r.transaction_reference === reference && r.status === 'pending');
    if (!refund) throw new Error(`no pending refund ${reference}`);
    refund.status = outcome === 'succeeded' ? 'processed' : 'failed';
    const transaction = transactions.get(refund.transaction_reference)!;
    const processed = [...refunds.values()]
      .filter((r) => r.transaction_reference === transaction.reference && r.status === 'processed')
      .reduce((sum, r) => sum + r.amount, 0);
    if (processed === transaction.amount) transaction.status = 'reversed';
    const customer = customerFor(transaction.email);
    return send([
      {
        event: `refund.${refund.status}`,
        data: {
          status: refund.status,
          transaction_reference: refund.transaction_reference,
          refund_reference: refund.status === 'processed' ? `TRF_${token(15)}` : null,
          amount: String(refund.amount),
          currency: refund.currency,
          processor: 'instant-transfer',
          customer: { first_name: customer.first_name, last_name: customer.last_name, email: customer.email },
          integration: 412829,
          domain: 'test',
        },
      },
    ]);
  }

  // --- the server -----------------------------------------------------------------------------------------

  async function route(req: IncomingMessage, res: ServerResponse, raw: string): Promise<Answer | null> {
    const target = new URL(req.url ?? '/', 'http://fake');
    const path = target.pathname;
    const method = req.method ?? 'GET';
    const pageMatch = /^\/(authorize|checkout)\/([a-z0-9]+)$/.exec(path);
    if (pageMatch && (method === 'GET' || method === 'POST')) {
      if (pageMatch[1] === 'authorize') await authorizationPage(req, res, pageMatch[2]!, raw);
      else await checkoutPage(req, res, pageMatch[2]!, raw);
      return null;
    }
    let body: Record<string, unknown> = {};
    if (raw !== '') {
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return fail(400, 'Invalid JSON body', { type: 'validation_error' });
      }
    }
    requests.push({ method, path, query: Object.fromEntries(target.searchParams), body });
    const auth = req.headers.authorization;
    if (!auth) return fail(401, 'No Authorization Header was found');
    if (auth !== `Bearer ${secretKey}`) return fail(401, 'Invalid key');
    const param = (prefix: string) => decodeURIComponent(path.slice(prefix.length));
    if (method === 'POST' && path === '/customer/authorization/initialize')
      return initializeAuthorization(body);
    if (method === 'GET' && path.startsWith('/customer/authorization/verify/')) {
      return verifyAuthorization(param('/customer/authorization/verify/'));
    }
    if (method === 'POST' && path === '/transaction/charge_authorization') return chargeAuthorization(body);
    if (method === 'POST' && path === '/transaction/initialize') return initializeTransaction(body);
    if (method === 'GET' && path.startsWith('/transaction/verify/')) {
      return verifyTransaction(param('/transaction/verify/'));
    }
    if (method === 'POST' && path === '/customer') return createCustomer(body);
    if (method === 'GET' && /^\/customer\/[^/]+$/.test(path)) return fetchCustomer(param('/customer/'));
    if (method === 'POST' && path === '/dedicated_account') return createDedicatedAccount(body);
    if (method === 'POST' && path === '/refund') return createRefund(body);
    return fail(404, 'Entity not found');
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      route(req, res, Buffer.concat(chunks).toString('utf8'))
        .then((answer) => {
          if (answer) {
            res
              .writeHead(answer.status, { 'content-type': 'application/json' })
              .end(JSON.stringify(answer.body));
          }
        })
        .catch((error: unknown) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ status: false, message: String(error) }));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    secretKey,
    requests,
    transactionsFor: (reference) => created.get(reference) ?? 0,
    nextCharge: (outcome) => {
      outcomes.push(outcome);
    },
    completeAuthorization,
    payCheckout,
    transferToAccount,
    settleDebit,
    settleRefund,
    sign: (body) => sign(body),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
