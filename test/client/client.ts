/**
 * What an integrator writes against a client generated from the OpenAPI document: it must type-check with
 * the generated types, and run. Creates a customer, a plan and a payment, then gets a typed
 * `amount_exceeds_balance`. Reads PAYTRACK_API (the server's base URL) and PAYTRACK_KEY.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './.generated/paytrack.js';

const baseUrl = process.env.PAYTRACK_API;
const key = process.env.PAYTRACK_KEY;
if (!baseUrl || !key) throw new Error('set PAYTRACK_API and PAYTRACK_KEY');

const paytrack = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });

function must<T>(result: { data?: { data: T }; error?: unknown }, what: string): T {
  if (!result.data) throw new Error(`${what} failed: ${JSON.stringify(result.error)}`);
  return result.data.data;
}

const customer: components['schemas']['Customer'] = must(
  await paytrack.POST('/api/v1/customers', { body: { name: 'Ada Obi', phone: '+2348031234567' } }),
  'creating a customer',
);
const plan = must(
  await paytrack.POST('/api/v1/tracks', {
    body: {
      customerId: customer.id,
      title: 'Fridge, 3 instalments',
      amount: 150_000,
      currency: 'NGN',
      installments: 3,
    },
  }),
  'creating a plan',
);
const payment = must(
  await paytrack.POST('/api/v1/payments', {
    body: { trackId: plan.id, amount: 50_000, method: 'bank_transfer', reference: `TRF-${Date.now()}` },
    params: { header: { 'Idempotency-Key': `typed-client-${plan.id}` } },
  }),
  'recording a payment',
);
const after = must(
  await paytrack.GET('/api/v1/tracks/{id}', { params: { path: { id: plan.id } } }),
  'reading the plan',
);
const balance: number = after.balance;
if (balance !== 100_000) throw new Error(`balance ${balance}, expected 100000`);

const over = await paytrack.POST('/api/v1/payments', { body: { trackId: plan.id, amount: 200_000 } });
if (!over.error) throw new Error('a payment over the balance was accepted');
// The error code is a union of the codes the operation documents, not any string.
type PaymentErrorCode = typeof over.error.error.code;
const expected: PaymentErrorCode = 'amount_exceeds_balance';
// @ts-expect-error a code this operation never answers with does not type-check
const never: PaymentErrorCode = 'payment_exploded';
void never;
if (over.error.error.code !== expected) throw new Error(`got ${over.error.error.code}`);
if (over.response.status !== 422) throw new Error(`status ${over.response.status}`);

console.log(
  JSON.stringify({
    customer: customer.id,
    plan: plan.id,
    payment: payment.id,
    balance,
    refused: { status: over.response.status, code: over.error.error.code, details: over.error.error.details },
  }),
);
