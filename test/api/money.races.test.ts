import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { approvedMandate } from '../helpers/collections.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';
import { notification, notify, type ProviderSetting, providerSetting } from '../helpers/providers.js';

// The outside review's races, kept: bursts of 48 requests at once mixing payments, reversals, schedule syncs and
// generations, test clock advances, provider notifications (some sent twice, some overpaying) and applied
// credit, on one workspace. After every burst the seven money invariants must hold, read through the API:
//
// 1. a plan's balance is its amount less its recorded payments;
// 2. a plan's balance is the sum of its ledger entries, and never below 0 (completed exactly when it is 0);
// 3. an obligation's amount_paid is the sum of its allocations not undone, between 0 and its amount, and its
//    status agrees (paid exactly when it is all paid);
// 4. every part of a payment's allocations stands on the obligation, and no payment allocates more than it is;
// 5. what a plan's open obligations ask never exceeds its balance;
// 6. money reported by the provider is recorded once, whole: the distinct notifications' amounts equal the
//    provider payments' (recorded or reversed; a split one counts through its parts);
// 7. what the reports say was collected equals the recorded payments and what they say is outstanding equals
//    the plans' balances, and the customers' credit equals their unapplied payments.

const NOW = '2028-01-10T12:00:00.000Z';
const ROUNDS = 4;
const BURST = 48;

let t: TestApp;
/** What the server logged as errors: a 5xx names its cause here. */
const errors: string[] = [];
before(async () => {
  t = await buildTestApp({
    clock: new ManualClock(new Date(NOW)),
    env: { RATE_LIMIT_PER_MINUTE: '100000', LOG_LEVEL: 'error' },
    logger: { level: 'error', stream: { write: (line: string) => errors.push(line) } },
  });
});
after(() => t.close());

/** A deterministic sequence, so that a failing burst can be run again. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

async function all<T = any>(api: Client, path: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const res = await api.get(
      `${path}${separator}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    items.push(...res.body.data.items);
    cursor = res.body.data.next_cursor;
  } while (cursor);
  return items;
}

interface World {
  api: Client;
  plans: { id: string; scheduleId: string; account: string | null }[];
  debit: { planId: string; scheduleId: string };
  gatewayB: ProviderSetting;
  /** Distinct notifications answered 200: their amounts must all be on the books. */
  reported: Map<string, number>;
}

async function setUp(): Promise<World> {
  const { api, workspaceId } = await newWorkspace(t);
  const gatewayB = await providerSetting(t, workspaceId, 'gatewayB');
  const plans: World['plans'] = [];
  for (let i = 0; i < 4; i++) {
    const customer = await newCustomer(api);
    const plan = await newTrack(api, { customerId: customer.id, amount: 120_000 });
    const schedule = await api.post('/collection-schedules', {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 30_000,
      start_date: '2028-01-12T09:00:00Z',
      end_date: '2028-04-12T09:00:00Z',
      collection_method: i % 2 === 0 ? 'gatewayB_virtual_account' : 'manual',
    });
    assert.equal(schedule.status, 201, JSON.stringify(schedule.body));
    plans.push({
      id: plan.id,
      scheduleId: schedule.body.data.id,
      account: schedule.body.data.virtual_account?.number ?? null,
    });
  }
  const debitPlan = await newTrack(api, { amount: 90_000 });
  const debitSchedule = await api.post('/collection-schedules', {
    target_type: 'payment_plan',
    target_id: debitPlan.id,
    frequency: 'weekly',
    fixed_amount: 10_000,
    start_date: '2028-01-11T09:00:00Z',
    end_date: '2028-03-11T09:00:00Z',
    collection_method: 'auto_debit',
  });
  assert.equal(debitSchedule.status, 201, JSON.stringify(debitSchedule.body));
  await approvedMandate(t, api, debitSchedule.body.data.id);
  return {
    api,
    plans,
    debit: { planId: debitPlan.id, scheduleId: debitSchedule.body.data.id },
    gatewayB,
    reported: new Map(),
  };
}

/** One request of a burst, chosen by the sequence. */
async function oneRequest(world: World, next: () => number, sent: Record<string, unknown>[]) {
  const { api, plans } = world;
  const plan = plans[Math.floor(next() * plans.length)] ?? plans[0]!;
  const pick = next();
  if (pick < 0.25) {
    return api.post('/payments', {
      trackId: plan.id,
      amount: 1 + Math.floor(next() * 20_000),
      method: 'cash',
    });
  }
  if (pick < 0.35) {
    const payments = (await api.get(`/payments?trackId=${plan.id}&status=recorded&limit=5`)).body.data.items;
    const victim = payments[Math.floor(next() * payments.length)];
    return victim ? api.post(`/payments/${victim.id}/reverse`, { reason: 'race' }) : undefined;
  }
  if (pick < 0.45) {
    return api.patch(`/collection-schedules/${plan.scheduleId}`, { action: 'sync_payment_plan' });
  }
  if (pick < 0.52) {
    return api.patch(`/collection-schedules/${plan.scheduleId}`, { action: 'generate_obligations' });
  }
  if (pick < 0.6) return api.post('/account/test-clock/advance', { hours: 1 + Math.floor(next() * 48) });
  if (pick < 0.88) {
    const withAccount = plans.filter((p) => p.account !== null);
    const target = withAccount[Math.floor(next() * withAccount.length)] ?? withAccount[0]!;
    // Some are delivered again (the same id), some name no account, some overpay.
    const again = sent.length > 0 && next() < 0.25 ? sent[Math.floor(next() * sent.length)] : undefined;
    const body =
      again ??
      notification(next() < 0.1 ? '0000000000' : (target.account as string), {
        type: 'transfer.received',
        amount: 1 + Math.floor(next() * 60_000),
        occurred_at: '2028-01-10T11:00:00Z',
      });
    if (!again) sent.push(body);
    const res = await notify(t, world.gatewayB, body);
    if (res.statusCode === 200) world.reported.set(body.id as string, body.amount as number);
    return { status: res.statusCode, body: JSON.parse(res.body) };
  }
  const credit = (await api.get('/payments?unapplied=true&limit=5')).body.data.items.find(
    (p: any) => p.customerId !== null,
  );
  if (!credit) return undefined;
  const plansOfCustomer = (await api.get(`/tracks?customerId=${credit.customerId}&status=active`)).body.data
    .items;
  const target = plansOfCustomer[0];
  return target ? api.post(`/payments/${credit.id}/apply`, { trackId: target.id }) : undefined;
}

async function checkInvariants(world: World, round: number) {
  const { api } = world;
  const where = `after burst ${round}`;
  const plans = await all(api, '/tracks');
  const payments = await all(api, '/payments');
  const obligationsByPlan = new Map<string, any[]>();
  const obligations: any[] = [];
  for (const schedule of await all(api, '/collection-schedules')) {
    const ofSchedule = await all(api, `/collection-schedules/${schedule.id}/obligations`);
    obligations.push(...ofSchedule);
    for (const o of ofSchedule) {
      if (o.track_id) obligationsByPlan.set(o.track_id, [...(obligationsByPlan.get(o.track_id) ?? []), o]);
    }
  }
  const obligationById = new Map(obligations.map((o) => [o.id, o]));
  for (const plan of plans) {
    const paid = payments
      .filter((p) => p.trackId === plan.id && p.status === 'recorded')
      .reduce((sum, p) => sum + p.amount, 0);
    assert.equal(plan.balance, plan.amount - paid, `1. ${plan.id} balance = amount - payments ${where}`);
    const ledger = await all(api, `/tracks/${plan.id}/ledger`);
    assert.equal(
      ledger.reduce((sum, e) => sum + e.amount, 0),
      plan.balance,
      `2. ${plan.id} balance = ledger sum ${where}`,
    );
    assert.ok(plan.balance >= 0, `2. ${plan.id} balance >= 0 ${where}`);
    assert.equal(plan.status === 'completed', plan.balance === 0, `2. ${plan.id} completed iff 0 ${where}`);
    const owed = (obligationsByPlan.get(plan.id) ?? [])
      .filter((o) => ['pending', 'partially_paid', 'overdue'].includes(o.status))
      .reduce((sum, o) => sum + o.amount - o.amount_paid, 0);
    assert.ok(
      owed <= plan.balance,
      `5. ${plan.id} open obligations ask ${owed} > balance ${plan.balance} ${where}`,
    );
  }
  for (const o of obligations) {
    const allocated = o.allocations
      .filter((a: any) => a.reversed_at === null)
      .reduce((sum: number, a: any) => sum + a.amount, 0);
    assert.equal(o.amount_paid, allocated, `3. ${o.id} amount_paid = allocations ${where}`);
    assert.ok(o.amount_paid >= 0 && o.amount_paid <= o.amount, `3. ${o.id} 0 <= paid <= amount ${where}`);
    if (o.status !== 'cancelled') {
      assert.equal(o.status === 'paid', o.amount_paid === o.amount, `3. ${o.id} paid iff all paid ${where}`);
    }
  }
  for (const p of payments) {
    const live = p.allocations.filter((a: any) => a.reversedAt === null);
    assert.ok(
      live.reduce((sum: number, a: any) => sum + a.amount, 0) <= p.amount,
      `4. ${p.id} allocates at most its amount ${where}`,
    );
    for (const part of live) {
      const standing = obligationById
        .get(part.obligationId)
        ?.allocations.find((a: any) => a.payment_id === p.id && a.reversed_at === null);
      assert.equal(standing?.amount, part.amount, `4. ${p.id} part on ${part.obligationId} ${where}`);
    }
  }
  const fromProvider = payments
    .filter((p) => p.source === 'provider' && p.method === 'virtual_account' && p.status !== 'split')
    .reduce((sum, p) => sum + p.amount, 0);
  const reported = [...world.reported.values()].reduce((sum, amount) => sum + amount, 0);
  assert.equal(fromProvider, reported, `6. reported money recorded once, whole ${where}`);
  const recorded = payments.filter((p) => p.status === 'recorded').reduce((sum, p) => sum + p.amount, 0);
  const summary = (await api.get('/reports/summary')).body.data;
  const collected = summary.currencies.reduce((sum: number, c: any) => sum + c.collected, 0);
  assert.equal(collected, recorded, `7. collected = recorded payments ${where}`);
  const outstanding = summary.currencies.reduce((sum: number, c: any) => sum + c.outstanding, 0);
  const owedOnPlans = plans.filter((p) => p.status !== 'archived').reduce((sum, p) => sum + p.balance, 0);
  assert.equal(outstanding, owedOnPlans, `7. outstanding = plans' balances ${where}`);
  const unapplied = payments.filter((p) => p.unapplied && p.customerId !== null);
  const customers = await all(api, '/customers');
  const credit = customers.reduce(
    (sum, c) => sum + c.balances.reduce((s: number, b: any) => s + b.credit, 0),
    0,
  );
  assert.equal(
    credit,
    unapplied.reduce((sum, p) => sum + p.amount, 0),
    `7. credit = unapplied payments ${where}`,
  );
}

describe('money under concurrent requests', () => {
  test(`${ROUNDS} bursts of ${BURST} requests at once keep the seven money invariants`, async () => {
    const world = await setUp();
    const next = random(21);
    const sent: Record<string, unknown>[] = [];
    let statuses: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const answers = await Promise.all(Array.from({ length: BURST }, () => oneRequest(world, next, sent)));
      statuses = [...statuses, ...answers.flatMap((a) => (a ? [a.status] : []))];
      await checkInvariants(world, round);
    }
    assert.ok(
      statuses.every((status) => status < 500),
      `no 5xx: ${statuses.filter((s) => s >= 500).join(', ')}\n${errors.join('\n').slice(0, 4000)}`,
    );
    // The bursts did make money move, in every way they mix.
    const payments = await all(world.api, '/payments');
    assert.ok(payments.some((p) => p.status === 'reversed'));
    assert.ok(payments.some((p) => p.unappliedReason === 'overpayment'));
    assert.ok(payments.some((p) => p.method === 'direct_debit'));
  });
});
