import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { answer, formTokenOf, openPage, pathOf } from '../helpers/consent.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';

const NOW = '2028-01-20T12:00:00.000Z';
/** The load balancer in front of the service, and two payers behind it. */
const BALANCER = '10.1.2.3';
const PAYER = '203.0.113.7';
const OTHER_PAYER = '203.0.113.8';

/** A pending mandate of a new workspace's automatic schedule, for its consent link. */
async function pendingMandate(api: Client) {
  const customer = await newCustomer(api);
  const plan = await newTrack(api, { customerId: customer.id, amount: 90_000 });
  const schedule = await api.post('/collection-schedules', {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'monthly',
    fixed_amount: 30_000,
    start_date: '2028-01-25T09:00:00Z',
    collection_method: 'auto_debit',
  });
  assert.equal(schedule.status, 201, JSON.stringify(schedule.body));
  const mandate = await api.post('/payment-mandates', {
    payer_type: 'customer',
    provider: 'gatewayA',
    schedule_id: schedule.body.data.id,
  });
  assert.equal(mandate.status, 201, JSON.stringify(mandate.body));
  return mandate.body.data;
}

/** Approves the mandate's consent page from `peer` (the connection's address) with these headers. */
async function approveFrom(t: TestApp, consentUrl: string, peer: string, headers: Record<string, string>) {
  const path = pathOf(consentUrl);
  const page = await t.app.inject({ method: 'GET', url: path, remoteAddress: peer, headers });
  assert.equal(page.statusCode, 200, page.body);
  const res = await answer(
    t,
    path,
    { decision: 'approve', form_token: formTokenOf(page.body) },
    headers,
    peer,
  );
  assert.equal(res.statusCode, 200, res.body);
}

async function consentIp(t: TestApp, peer: string, headers: Record<string, string>): Promise<string> {
  const { api } = await newWorkspace(t);
  const mandate = await pendingMandate(api);
  await approveFrom(t, mandate.consent_url, peer, headers);
  return (await api.get(`/payment-mandates/${mandate.id}`)).body.data.consent.ip;
}

/** Statuses of 31 requests to the consent page through the balancer, the last one from `last`. */
async function pageStatuses(t: TestApp, first: string, last: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 31; i++) {
    const forwarded = i < 30 ? first : last;
    const res = await t.app.inject({
      method: 'GET',
      url: '/consent/ct_x',
      remoteAddress: BALANCER,
      headers: { 'x-forwarded-for': forwarded },
    });
    statuses.push(res.statusCode);
  }
  return statuses;
}

describe('TRUST_PROXY set to the balancer', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock: new ManualClock(new Date(NOW)), env: { TRUST_PROXY: '10.0.0.0/8' } });
  });
  after(() => t.close());

  test('consent evidence keeps the address the balancer forwards, not its own', async () => {
    assert.equal(await consentIp(t, BALANCER, { 'x-forwarded-for': PAYER }), PAYER);
  });

  test('the header from an address that is not a trusted proxy is ignored', async () => {
    assert.equal(await consentIp(t, '198.51.100.9', { 'x-forwarded-for': PAYER }), '198.51.100.9');
  });

  test("the consent page's per-address limit counts each forwarded address on its own", async () => {
    const sameAddress = await pageStatuses(t, '203.0.113.20', '203.0.113.20');
    assert.equal(sameAddress[29], 404);
    assert.equal(sameAddress[30], 429, 'the 31st request a minute from one payer');
    const another = await pageStatuses(t, '203.0.113.21', OTHER_PAYER);
    assert.equal(
      another[30],
      404,
      "another payer behind the same balancer is not held by the first one's limit",
    );
  });
});

describe('TRUST_PROXY as a hop count', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock: new ManualClock(new Date(NOW)), env: { TRUST_PROXY: '1' } });
  });
  after(() => t.close());

  test('the address one hop back is the client: what the client itself wrote before it is not', async () => {
    assert.equal(await consentIp(t, BALANCER, { 'x-forwarded-for': `192.0.2.66, ${PAYER}` }), PAYER);
  });
});

describe('TRUST_PROXY unset', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
  });
  after(() => t.close());

  test('X-Forwarded-For is ignored: evidence and limits see the connection', async () => {
    assert.equal(await consentIp(t, BALANCER, { 'x-forwarded-for': PAYER }), BALANCER);
    const statuses = await pageStatuses(t, PAYER, OTHER_PAYER);
    assert.equal(statuses[30], 429, 'every payer behind the balancer shares its address');
    assert.equal((await openPage(t, '/consent/ct_x', '192.0.2.99')).statusCode, 404);
  });
});
