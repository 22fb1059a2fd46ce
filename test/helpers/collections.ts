import assert from 'node:assert/strict';
import type { Client } from './api.js';
import type { TestApp } from './app.js';
import { consent } from './consent.js';
import { newCustomer, newTrack } from './factories.js';

/** A collection schedule, created as a client would; the test stops at once if it is refused. */
export async function newSchedule(api: Client, body: Record<string, unknown>) {
  const res = await api.post('/collection-schedules', body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

/** A mandate for the schedule, approved by its payer on the consent page: active in test mode. */
export async function approvedMandate(t: TestApp, api: Client, scheduleId: string, provider = 'gatewayA') {
  const created = await api.post('/payment-mandates', {
    payer_type: 'customer',
    provider,
    schedule_id: scheduleId,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal((await consent(t, created.body.data.consent_url, 'approve')).statusCode, 200);
  return created.body.data;
}

/**
 * A plan of three monthly automatic debits of `fixedAmount`, due 25 Jan, 25 Feb and 25 Mar 2028 (`method`
 * auto_debit unless given).
 */
export async function threeMonthlyDebits(
  api: Client,
  fixedAmount: number,
  method = 'auto_debit',
  customerFields: Record<string, unknown> = {},
) {
  const customer = await newCustomer(api, customerFields);
  const plan = await newTrack(api, { customerId: customer.id, amount: 3 * fixedAmount });
  const schedule = await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'monthly',
    fixed_amount: fixedAmount,
    start_date: '2028-01-25T09:00:00Z',
    end_date: '2028-03-25T09:00:00Z',
    collection_method: method,
  });
  return { customer, plan, schedule };
}

/** A schedule's obligations in due date order (the first 100). */
export async function obligationsOf<Row = Record<string, any>>(
  api: Client,
  scheduleId: string,
): Promise<Row[]> {
  const res = await api.get(`/collection-schedules/${scheduleId}/obligations?limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const items: { due_date: string; id: string }[] = res.body.data.items;
  return [...items].sort((a, b) => a.due_date.localeCompare(b.due_date) || a.id.localeCompare(b.id)) as Row[];
}
