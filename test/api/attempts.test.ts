import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runSweepsNow } from '../../src/jobs/sweeps.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp, withCharge } from '../helpers/app.js';
import { cliEnv, cliJson } from '../helpers/cli.js';
import { approvedMandate, threeMonthlyDebits } from '../helpers/collections.js';
import { consent } from '../helpers/consent.js';
import { newCustomer, newWorkspace } from '../helpers/factories.js';

const NOW = '2028-01-20T12:00:00.000Z';
const DAY_MS = 86_400_000;

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const autoDebit = (api: Client, fixedAmount: number, method = 'auto_debit') =>
  threeMonthlyDebits(api, fixedAmount, method);

const activeMandate = (api: Client, scheduleId: string, provider = 'gatewayA') =>
  approvedMandate(t, api, scheduleId, provider);

async function attemptsOf(api: Client, scheduleId: string) {
  const res = await api.get(`/collection-attempts?schedule_id=${scheduleId}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return [...res.body.data.items].reverse() as Record<string, unknown>[];
}

const advanceTo = (api: Client, to: string) => api.post('/account/test-clock/advance', { to });

describe('collection attempts', () => {
  test('nothing is attempted before the due date; on it, the active mandate is charged and the payment pays the obligation', async () => {
    const { api } = await newWorkspace(t);
    const { plan, schedule } = await autoDebit(api, 30_000);
    const mandate = await activeMandate(api, schedule.id);
    await advanceTo(api, '2028-01-24T23:59:59Z');
    assert.deepEqual(await attemptsOf(api, schedule.id), []);

    const moved = await advanceTo(api, '2028-01-25T00:00:00Z');
    assert.equal(moved.body.data.ran['attempts.create'], 1);
    const [attempt] = await attemptsOf(api, schedule.id);
    assert.equal(attempt?.status, 'succeeded');
    assert.equal(attempt?.attempt_number, 1);
    assert.equal(attempt?.mandate_id, mandate.id);
    assert.equal(attempt?.provider, 'gatewayA');
    assert.equal(attempt?.amount, 30_000);
    assert.equal(attempt?.attempted_at, '2028-01-25T00:00:00.000Z');
    const payment = (await api.get(`/payments/${attempt?.payment_id}`)).body.data;
    assert.equal(payment.source, 'provider');
    assert.equal(payment.method, 'direct_debit');
    assert.equal(payment.amount, 30_000);
    assert.equal(payment.allocations[0].amount, 30_000);
    const obligations = (await api.get(`/collection-schedules/${schedule.id}/obligations`)).body.data.items;
    assert.equal(obligations.at(-1).status, 'paid');
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 60_000);
    const ledger = (await api.get(`/tracks/${plan.id}/ledger?type=collection.succeeded`)).body.data.items;
    assert.equal(ledger.length, 1);
    assert.equal(ledger[0].amount, 0);
    const types = (await api.get('/events?limit=100')).body.data.items.map((e: { type: string }) => e.type);
    assert.ok(types.includes('attempt.created') && types.includes('attempt.succeeded'));
    // Only the due obligation was attempted; the others wait for their dates.
    assert.equal((await attemptsOf(api, schedule.id)).length, 1);
  });

  test('without an active mandate the attempt is blocked, and runs once a mandate is approved', async () => {
    const { api } = await newWorkspace(t);
    const { schedule } = await autoDebit(api, 20_000, 'mixed');
    await advanceTo(api, '2028-01-25T08:00:00Z');
    const [blocked] = await attemptsOf(api, schedule.id);
    assert.equal(blocked?.status, 'blocked');
    assert.equal(blocked?.blocked_reason, 'no_active_mandate');
    const again = await api.post('/account/test-clock/advance', { hours: 1 });
    assert.equal(again.body.data.ran['attempts.run'], 0, 'still blocked for the same cause: nothing changed');

    await activeMandate(api, schedule.id);
    await api.post('/account/test-clock/advance', { hours: 1 });
    const [ran] = await attemptsOf(api, schedule.id);
    assert.equal(ran?.id, blocked?.id);
    assert.equal(ran?.status, 'succeeded');
    assert.equal(ran?.blocked_reason, null);
    const events = (await api.get('/events?type=attempt.blocked')).body.data.items;
    assert.equal(events.length, 1);
  });

  test('a retryable failure (amount ending in 13) is retried 1, 3 and 7 days after the first failure, then given up', async () => {
    const { api } = await newWorkspace(t);
    const { schedule } = await autoDebit(api, 10_013);
    await activeMandate(api, schedule.id);
    await advanceTo(api, '2028-01-25T00:00:00Z');
    const first = Date.parse('2028-01-25T00:00:00Z');
    let attempts = await attemptsOf(api, schedule.id);
    assert.equal(attempts[0]?.status, 'failed');
    assert.equal(attempts[0]?.failure_code, 'insufficient_funds');
    assert.equal(attempts[0]?.next_retry_at, new Date(first + DAY_MS).toISOString());
    assert.equal(attempts[0]?.no_retry_reason, null);
    assert.equal(attempts[1]?.status, 'scheduled');
    assert.equal(attempts[1]?.scheduled_for, new Date(first + DAY_MS).toISOString());

    for (const [days, tryNumber] of [
      [1, 2],
      [3, 3],
      [7, 4],
    ] as const) {
      await advanceTo(api, new Date(first + days * DAY_MS).toISOString());
      attempts = await attemptsOf(api, schedule.id);
      const tried = attempts[tryNumber - 1];
      assert.equal(tried?.attempt_number, tryNumber);
      assert.equal(tried?.status, 'failed');
      assert.equal(tried?.attempted_at, new Date(first + days * DAY_MS).toISOString());
    }
    assert.equal(attempts.length, 4);
    assert.equal(attempts[1]?.next_retry_at, new Date(first + 3 * DAY_MS).toISOString());
    assert.equal(attempts[2]?.next_retry_at, new Date(first + 7 * DAY_MS).toISOString());
    assert.equal(attempts[3]?.next_retry_at, null);
    assert.equal(attempts[3]?.no_retry_reason, 'retries_exhausted');
    await api.post('/account/test-clock/advance', { days: 30 });
    assert.equal(
      (await attemptsOf(api, schedule.id)).filter((a) => a.obligation_id === attempts[0]?.obligation_id)
        .length,
      4,
    );
  });

  test('a failure that cannot be retried (amount ending in 14) is not retried', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const { schedule } = await autoDebit(api, 10_014);
    await activeMandate(api, schedule.id);
    await advanceTo(api, '2028-01-25T00:00:00Z');
    const attempts = await attemptsOf(api, schedule.id);
    assert.equal(attempts.length, 1);
    assert.equal(attempts[0]?.failure_code, 'account_closed');
    assert.equal(attempts[0]?.next_retry_at, null);
    assert.equal(attempts[0]?.no_retry_reason, 'not_retryable');
    const ledger = await t.ctx.db
      .selectFrom('ledger_entries')
      .select(['type', 'amount'])
      .where('workspace_id', '=', workspaceId)
      .where('type', '=', 'collection.failed')
      .execute();
    assert.deepEqual(ledger, [{ type: 'collection.failed', amount: 0 }]);
  });

  test('a revoked mandate stops the attempts: the next one is blocked', async () => {
    const { api } = await newWorkspace(t);
    const { schedule } = await autoDebit(api, 10_000);
    const mandate = await activeMandate(api, schedule.id);
    await advanceTo(api, '2028-01-25T00:00:00Z');
    await api.post(`/payment-mandates/${mandate.id}/revoke`, { reason: 'asked to stop' });
    await advanceTo(api, '2028-02-25T00:00:00Z');
    const attempts = await attemptsOf(api, schedule.id);
    assert.deepEqual(
      attempts.map((a) => [a.status, a.blocked_reason]),
      [
        ['succeeded', null],
        ['blocked', 'no_active_mandate'],
      ],
    );
  });

  test('a paused schedule makes no attempt until resumed; a cancelled one cancels its waiting attempts', async () => {
    const { api } = await newWorkspace(t);
    const { schedule } = await autoDebit(api, 10_000);
    await api.patch(`/collection-schedules/${schedule.id}`, { action: 'pause' });
    await advanceTo(api, '2028-01-25T06:00:00Z');
    assert.deepEqual(await attemptsOf(api, schedule.id), []);
    await api.patch(`/collection-schedules/${schedule.id}`, { action: 'resume' });
    await api.post('/account/test-clock/advance', { hours: 1 });
    const [waiting] = await attemptsOf(api, schedule.id);
    assert.equal(waiting?.status, 'blocked');
    await api.patch(`/collection-schedules/${schedule.id}`, { action: 'cancel' });
    await api.post('/account/test-clock/advance', { hours: 1 });
    assert.equal((await attemptsOf(api, schedule.id))[0]?.status, 'cancelled');
  });

  test('live mode: without the provider approval the attempt is blocked (provider_approval_required), then runs', async () => {
    const { live, workspaceId } = await newWorkspace(t);
    const { schedule } = await autoDebit(live, 10_000);
    await activeMandate(live, schedule.id, 'gatewayB');
    // Live mode runs on real time: the due date is the app clock's, and the sweeps run as the worker runs them.
    t.clock.set(new Date('2028-01-25T00:00:00Z'));
    try {
      await runSweepsNow(t.ctx, { mode: 'live', now: t.clock.now() });
      const [blocked] = await attemptsOf(live, schedule.id);
      assert.equal(blocked?.status, 'blocked');
      assert.equal(blocked?.blocked_reason, 'provider_approval_required');
      const mandate = (await live.get(`/payment-mandates?limit=1`)).body.data.items[0];
      assert.equal(mandate.status, 'pending', 'consented, waiting for the provider');

      await cliJson(
        cliEnv(t.database),
        'provider',
        'set',
        '--workspace',
        workspaceId,
        '--provider',
        'gatewayB',
        '--mode',
        'live',
        '--approved',
        '--json',
      );
      await runSweepsNow(t.ctx, { mode: 'live', now: t.clock.now() });
      const [ran] = await attemptsOf(live, schedule.id);
      // The live provider has no adapter on this server: the charge fails clearly and will be retried.
      assert.equal(ran?.status, 'failed');
      assert.equal(ran?.failure_code, 'provider_unavailable');
      assert.ok(ran?.next_retry_at);
    } finally {
      t.clock.set(new Date(NOW));
    }
  });

  test('filters by status, schedule_id and obligation_id; attempts:read reads; other workspaces see none', async () => {
    const { api } = await newWorkspace(t);
    const a = await autoDebit(api, 10_013);
    const b = await autoDebit(api, 10_000);
    await activeMandate(api, a.schedule.id);
    await advanceTo(api, '2028-01-25T00:00:00Z');
    const all = (await api.get('/collection-attempts')).body.data.items;
    assert.equal(all.length, 3);
    const failed = (await api.get('/collection-attempts?status=failed')).body.data.items;
    assert.equal(failed.length, 1);
    const ofB = (await api.get(`/collection-attempts?schedule_id=${b.schedule.id}`)).body.data.items;
    assert.deepEqual(
      ofB.map((x: { status: string }) => x.status),
      ['blocked'],
    );
    const byObligation = (await api.get(`/collection-attempts?obligation_id=${failed[0].obligation_id}`)).body
      .data.items;
    assert.equal(byObligation.length, 2);
    assert.equal((await api.get(`/collection-attempts/${failed[0].id}`)).body.data.id, failed[0].id);
    const other = await newWorkspace(t);
    assert.equal((await other.api.get(`/collection-attempts/${failed[0].id}`)).status, 404);
    assert.equal((await api.get('/collection-attempts?status=done')).status, 422);
  });

  test('a worker stopped in the middle of a charge: another takes it over, the provider charges once, one payment', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const { plan, schedule } = await autoDebit(api, 10_000);
    await activeMandate(api, schedule.id);
    // A worker whose process dies right after the provider took the charge: its call never comes back.
    const dying = withCharge(t, async (request, charge) => {
      await charge(request);
      throw new Error('worker killed');
    });
    await runSweepsNow(dying, { mode: 'test', workspaceId, now: new Date('2028-01-25T00:00:00Z') });
    const [inFlight] = await attemptsOf(api, schedule.id);
    assert.equal(inFlight?.status, 'processing');

    // Within two minutes the charge is still the first worker's; after, the next worker takes it over.
    await advanceTo(api, '2028-01-25T00:01:00Z');
    assert.equal((await attemptsOf(api, schedule.id))[0]?.status, 'processing');
    await advanceTo(api, '2028-01-25T00:02:00Z');
    const [done] = await attemptsOf(api, schedule.id);
    assert.equal(done?.status, 'succeeded');
    const charges = await t.ctx.db
      .selectFrom('simulated_charges')
      .selectAll()
      .where('reference', '=', String(done?.id))
      .execute();
    assert.equal(charges.length, 1, 'the provider charged once');
    const payments = (await api.get(`/tracks/${plan.id}/payments`)).body.data.items;
    assert.equal(payments.length, 1);
    assert.equal(payments[0].id, done?.payment_id);
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 20_000);
  });

  test("a schedule without a plan is debited on its payer's mandate: the payment has no plan, pays the obligation, and can be reversed", async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const schedule = (
      await api.post('/collection-schedules', {
        target_type: 'generic_collection',
        target_id: null,
        frequency: 'one_time',
        fixed_amount: 5_000,
        start_date: '2028-01-25T09:00:00Z',
        collection_method: 'auto_debit',
      })
    ).body.data;
    const mandate = await api.post('/payment-mandates', {
      payer_type: 'customer',
      payer_id: customer.id,
      provider: 'gatewayA',
      schedule_id: schedule.id,
    });
    assert.equal(mandate.status, 201, JSON.stringify(mandate.body));
    assert.equal((await consent(t, mandate.body.data.consent_url, 'approve')).statusCode, 200);

    await advanceTo(api, '2028-01-26T00:00:00Z');
    const [attempt] = await attemptsOf(api, schedule.id);
    assert.equal(attempt?.status, 'succeeded');
    const payment = (await api.get(`/payments/${attempt?.payment_id}`)).body.data;
    assert.equal(payment.trackId, null);
    assert.equal(payment.customerId, customer.id);
    assert.equal(payment.amount, 5_000);
    assert.equal(payment.method, 'direct_debit');
    assert.equal(payment.source, 'provider');
    assert.deepEqual(payment.allocations, [
      { obligationId: attempt?.obligation_id, amount: 5_000, reversedAt: null },
    ]);
    assert.equal(payment.unallocatedAmount, 0);
    const [obligation] = (await api.get(`/collection-schedules/${schedule.id}/obligations`)).body.data.items;
    assert.equal(obligation.status, 'paid');
    assert.equal((await api.get(`/collection-schedules/${schedule.id}`)).body.data.status, 'completed');
    const recorded = (await api.get('/ledger?type=payment.recorded')).body.data.items;
    assert.deepEqual(
      recorded.map((e: Record<string, unknown>) => [e.trackId, e.customerId, e.amount, e.balanceAfter]),
      [[null, customer.id, -5_000, null]],
    );

    const reversed = await api.post(`/payments/${payment.id}/reverse`, { reason: 'bank recalled it' });
    assert.equal(reversed.status, 200, JSON.stringify(reversed.body));
    assert.equal(reversed.body.data.status, 'reversed');
    const [reopened] = (await api.get(`/collection-schedules/${schedule.id}/obligations`)).body.data.items;
    assert.equal(reopened.status, 'overdue');
    assert.equal(reopened.amount_paid, 0);
    assert.equal((await api.get(`/collection-schedules/${schedule.id}`)).body.data.status, 'active');
    const [entry] = (await api.get('/ledger?type=payment.reversed')).body.data.items;
    assert.deepEqual([entry.trackId, entry.customerId, entry.amount], [null, customer.id, 5_000]);
  });

  test("money collected for a plan paid off meanwhile stays on the books as the customer's credit, unapplied (plan_closed); other attempts go on", async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const raced = await autoDebit(api, 10_000);
    const fine = await autoDebit(api, 10_000);
    await activeMandate(api, raced.schedule.id);
    await activeMandate(api, fine.schedule.id);
    // While the provider charges the first plan, the business records its whole balance by hand.
    const mandateIds: string[] = [];
    const racing = withCharge(t, async (request, charge) => {
      mandateIds.push(request.mandateId);
      const attempt = (await api.get(`/collection-attempts/${request.reference}`)).body.data;
      if (attempt.schedule_id === raced.schedule.id) {
        await api.post('/payments', { trackId: raced.plan.id, amount: 30_000, method: 'cash' });
      }
      return charge(request);
    });
    await runSweepsNow(racing, { mode: 'test', workspaceId, now: new Date('2028-01-25T00:00:00Z') });
    assert.equal(mandateIds.length, 2);
    for (const id of mandateIds) assert.match(id, /^sim_mdt_/, "charged on the provider's mandate id");
    const [collected] = await attemptsOf(api, raced.schedule.id);
    assert.equal(collected?.status, 'succeeded');
    const payment = (await api.get(`/payments/${collected?.payment_id}`)).body.data;
    assert.equal(payment.trackId, null);
    assert.equal(payment.customerId, raced.customer.id);
    assert.equal(payment.amount, 10_000);
    assert.deepEqual(payment.allocations, []);
    assert.equal(payment.unallocatedAmount, 10_000);
    assert.equal(payment.unapplied, true);
    assert.equal(payment.unappliedReason, 'plan_closed');
    assert.equal(payment.metadata.planId, raced.plan.id);
    assert.match(payment.metadata.unapplied, /completed or archived/);
    const customer = (await api.get(`/customers/${raced.customer.id}`)).body.data;
    assert.deepEqual(
      customer.balances.map((b: any) => [b.currency, b.credit]),
      [['NGN', 10_000]],
    );
    const plan = (await api.get(`/tracks/${raced.plan.id}`)).body.data;
    assert.deepEqual([plan.balance, plan.amountPaid, plan.status], [0, 30_000, 'completed']);
    assert.equal((await api.get(`/tracks/${raced.plan.id}/payments`)).body.data.items.length, 1);
    const [done] = await attemptsOf(api, fine.schedule.id);
    assert.equal(done?.status, 'succeeded');
  });
});
