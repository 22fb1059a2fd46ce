import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runSweepsNow } from '../../src/jobs/sweeps.js';
import { ManualClock } from '../../src/lib/clock.js';
import { newId } from '../../src/lib/ids.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newSchedule } from '../helpers/collections.js';
import { newCustomer, newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

/** Real time of every test here; the workspaces are in Lagos (UTC+1), so their days begin at 23:00 UTC. */
const NOW = '2027-12-20T12:00:00.000Z';

/** The first instant of a Lagos calendar date. */
const lagosDay = (date: string) => new Date(Date.parse(`${date}T00:00:00.000Z`) - 3_600_000).toISOString();

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const lagos = () => newWorkspace(t, { timezone: 'Africa/Lagos' });

async function advance(api: Client, body: Record<string, unknown>) {
  const res = await api.post('/account/test-clock/advance', body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as { now: string; ran: Record<string, number> };
}

async function obligationsOf(api: Client, trackId: string) {
  const res = await api.get(`/obligations?track_id=${trackId}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.items as Record<string, any>[];
}

const feesOf = async (api: Client, trackId: string) =>
  (await obligationsOf(api, trackId)).filter((o) => o.kind === 'fee');

async function ledgerOf(api: Client, trackId: string, type: string) {
  const res = await api.get(`/tracks/${trackId}/ledger?type=${type}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return [...res.body.data.items].reverse() as Record<string, any>[];
}

async function planOf(api: Client, trackId: string) {
  const res = await api.get(`/tracks/${trackId}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as Record<string, any>;
}

async function eventsOf(workspaceId: string, type: string) {
  const rows = await t.ctx.db
    .selectFrom('events')
    .select('data')
    .where('workspace_id', '=', workspaceId)
    .where('mode', '=', 'test')
    .where('type', '=', type)
    .orderBy('id')
    .execute();
  return rows.map((row) => JSON.parse(row.data) as Record<string, any>);
}

/** A plan of `count` monthly manual instalments of `each`, from 26 Dec 2027, under `lateFee`. */
async function planWithFees(api: Client, each: number, count: number, lateFee: unknown) {
  const customer = await newCustomer(api);
  const plan = await newTrack(api, { customerId: customer.id, amount: count * each });
  const schedule = await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: count === 1 ? 'one_time' : 'monthly',
    fixed_amount: each,
    start_date: '2027-12-26T09:00:00Z',
    ...(count === 1 ? {} : { end_date: `${count <= 1 ? '2027-12' : monthAfter(count - 1)}-26T09:00:00Z` }),
    late_fee: lateFee,
  });
  return { customer, plan, schedule };
}

/** The month `n` months after December 2027, `YYYY-MM`. */
function monthAfter(n: number): string {
  const month = 11 + n;
  return `${2027 + Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, '0')}`;
}

describe('late fees over the test clock', () => {
  test('a fixed fee every 30 days after 5 grace days: over a 120-day advance each period once, with its own date', async () => {
    const { api, workspaceId } = await lagos();
    const policy = { type: 'fixed', value: 5_000, every_days: 30, grace_days: 5 };
    const { plan, schedule } = await planWithFees(api, 100_000, 3, policy);
    assert.deepEqual(schedule.late_fee, { ...policy, cap_per_obligation: null, cap_per_plan: null });

    const moved = await advance(api, { days: 120 });

    const instalments = (await obligationsOf(api, plan.id)).filter((o) => o.kind === 'instalment');
    const byId = new Map(instalments.map((o) => [o.id, o.due_date]));
    const fees = await feesOf(api, plan.id);
    // Due 26 Dec, 26 Jan and 26 Feb: overdue the next day, plus 5 grace days, then every 30 days, up to 18 Apr.
    assert.deepEqual(
      fees.map((f) => [byId.get(f.fee_of), f.due_date, f.amount]),
      [
        ['2027-12-26', '2028-01-01', 5_000],
        ['2027-12-26', '2028-01-31', 5_000],
        ['2028-01-26', '2028-02-01', 5_000],
        ['2027-12-26', '2028-03-01', 5_000],
        ['2028-01-26', '2028-03-02', 5_000],
        ['2028-02-26', '2028-03-03', 5_000],
        ['2027-12-26', '2028-03-31', 5_000],
        ['2028-01-26', '2028-04-01', 5_000],
        ['2028-02-26', '2028-04-02', 5_000],
      ],
    );
    for (const fee of fees) {
      assert.equal(fee.schedule_id, schedule.id);
      assert.equal(fee.track_id, plan.id);
      assert.equal(fee.currency, 'NGN');
    }

    const entries = await ledgerOf(api, plan.id, 'fee.charged');
    assert.equal(entries.length, 9);
    assert.deepEqual(
      entries.map((e) => e.amount),
      Array(9).fill(5_000),
    );
    assert.deepEqual(
      entries.map((e) => e.balanceAfter),
      [305_000, 310_000, 315_000, 320_000, 325_000, 330_000, 335_000, 340_000, 345_000],
    );
    assert.deepEqual(new Set(entries.map((e) => e.refs.obligationId)), new Set(fees.map((f) => f.id)));
    const first = entries.find((e) => e.refs.obligationId === fees[0]?.id);
    assert.deepEqual(first?.refs, { obligationId: fees[0]?.id, feeOf: fees[0]?.fee_of, period: '0' });
    // Each at its own instant: the start of its day in Lagos.
    assert.deepEqual(
      entries.map((e) => e.occurredAt),
      fees.map((f) => lagosDay(f.due_date)),
    );

    const after120 = await planOf(api, plan.id);
    assert.equal(after120.amount, 345_000);
    assert.equal(after120.balance, 345_000);
    assert.equal((await eventsOf(workspaceId, 'fee.charged')).length, 9);

    // The sweep again, and a day more: nothing new (the next periods fall on 30 Apr, 1 and 2 May).
    await runSweepsNow(t.ctx, { mode: 'test', workspaceId, now: new Date(moved.now) });
    await advance(api, { days: 1 });
    assert.equal((await feesOf(api, plan.id)).length, 9);
    assert.equal((await planOf(api, plan.id)).balance, 345_000);
    await advance(api, { days: 13 });
    assert.equal((await feesOf(api, plan.id)).length, 12);
    assert.equal((await planOf(api, plan.id)).balance, 360_000);
  });

  test('a payment pays the instalment before the fee that follows it; a paid instalment is charged no more', async () => {
    const { api } = await lagos();
    const { plan } = await planWithFees(api, 100_000, 1, { type: 'fixed', value: 2_000, every_days: 7 });
    await advance(api, { to: lagosDay('2027-12-28') });
    assert.equal((await feesOf(api, plan.id)).length, 1);
    await newPayment(api, plan.id, { amount: 100_000 });
    const [instalment] = (await obligationsOf(api, plan.id)).filter((o) => o.kind === 'instalment');
    assert.equal(instalment?.status, 'paid');
    const [fee] = await feesOf(api, plan.id);
    assert.equal(fee?.amount_due, 2_000);
    await advance(api, { days: 30 });
    assert.equal((await feesOf(api, plan.id)).length, 1);
    assert.equal((await planOf(api, plan.id)).balance, 2_000);
  });

  test('a percent fee is a share of what the instalment still asks, rounded half up', async () => {
    const { api } = await lagos();
    const { plan } = await planWithFees(api, 100_020, 1, { type: 'percent', value: 2.5, every_days: 7 });
    await advance(api, { to: lagosDay('2027-12-28') });
    // 2.5% of 100,020 is 2,500.5: 2,501.
    assert.deepEqual(
      (await feesOf(api, plan.id)).map((f) => f.amount),
      [2_501],
    );
    // Paid down to 40,000 still asked: 2.5% is 1,000.
    await newPayment(api, plan.id, { amount: 60_020 });
    await advance(api, { to: lagosDay('2028-01-04') });
    assert.deepEqual(
      (await feesOf(api, plan.id)).map((f) => f.amount),
      [2_501, 1_000],
    );
    assert.equal((await planOf(api, plan.id)).balance, 100_020 + 2_501 + 1_000 - 60_020);
  });

  test('caps: the fee that would pass a cap is cut to fit, then none more', async () => {
    const { api } = await lagos();
    const { plan } = await planWithFees(api, 100_000, 2, {
      type: 'fixed',
      value: 5_000,
      every_days: 10,
      cap_per_obligation: 12_000,
      cap_per_plan: 15_000,
    });
    await advance(api, { days: 90 });
    const instalments = (await obligationsOf(api, plan.id)).filter((o) => o.kind === 'instalment');
    const byId = new Map(instalments.map((o) => [o.id, o.due_date]));
    assert.deepEqual(
      (await feesOf(api, plan.id)).map((f) => [byId.get(f.fee_of), f.due_date, f.amount]),
      [
        ['2027-12-26', '2027-12-27', 5_000],
        ['2027-12-26', '2028-01-06', 5_000],
        ['2027-12-26', '2028-01-16', 2_000],
        ['2028-01-26', '2028-01-27', 3_000],
      ],
    );
    assert.equal((await planOf(api, plan.id)).balance, 215_000);
  });

  test('a waiver lowers the plan by what the fee still asks; waiving twice is refused', async () => {
    const { api, workspaceId } = await lagos();
    const { plan } = await planWithFees(api, 100_000, 1, { type: 'fixed', value: 5_000, every_days: 30 });
    await advance(api, { to: lagosDay('2027-12-28') });
    const [fee] = await feesOf(api, plan.id);
    assert.ok(fee);
    assert.equal((await planOf(api, plan.id)).balance, 105_000);

    const reader = await newKey(t, workspaceId, { scopes: ['schedules:read'] });
    const forbidden = await reader.api.post(`/obligations/${fee.id}/waive`, { reason: 'Goodwill' });
    assert.equal(forbidden.status, 403, JSON.stringify(forbidden.body));
    const waived = await api.post(`/obligations/${fee.id}/waive`, { reason: 'Goodwill: first time late' });
    assert.equal(waived.status, 200, JSON.stringify(waived.body));
    assert.equal(waived.body.data.status, 'waived');
    assert.equal(waived.body.data.kind, 'fee');
    const plan2 = await planOf(api, plan.id);
    assert.equal(plan2.amount, 100_000);
    assert.equal(plan2.balance, 100_000);
    const [entry] = await ledgerOf(api, plan.id, 'fee.waived');
    assert.equal(entry?.amount, -5_000);
    assert.equal(entry?.balanceAfter, 100_000);
    assert.deepEqual(entry?.refs, { obligationId: fee.id, reason: 'Goodwill: first time late' });
    const [event] = await eventsOf(workspaceId, 'fee.waived');
    assert.equal(event?.id, fee.id);
    assert.equal(event?.status, 'waived');

    const again = await api.post(`/obligations/${fee.id}/waive`, { reason: 'again' });
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.equal(again.body.error.code, 'invalid_state');
    assert.equal((await planOf(api, plan.id)).balance, 100_000);

    const [instalment] = (await obligationsOf(api, plan.id)).filter((o) => o.kind === 'instalment');
    const notFee = await api.post(`/obligations/${instalment?.id}/waive`, { reason: 'no' });
    assert.equal(notFee.status, 422, JSON.stringify(notFee.body));
    assert.ok(notFee.body.error.details.fields.id);
    const unknown = await api.post('/obligations/obl_nope/waive', { reason: 'no' });
    assert.equal(unknown.status, 404);
    const noReason = await api.post(`/obligations/${fee.id}/waive`, {});
    assert.equal(noReason.status, 422);
    assert.ok(noReason.body.error.details.fields.reason);
    const longReason = await api.post(`/obligations/${fee.id}/waive`, { reason: 'x'.repeat(501) });
    assert.equal(longReason.status, 422);
    assert.ok(longReason.body.error.details.fields.reason);

    // Waived fees do not count towards what the plan owes next time: the next period charges as usual.
    await advance(api, { days: 30 });
    assert.equal((await planOf(api, plan.id)).balance, 105_000);
  });

  test('no fee while a dispute is open on the instalment; periods after it is resolved are charged', async () => {
    const { api, workspaceId } = await lagos();
    const { plan, customer } = await planWithFees(api, 100_000, 1, {
      type: 'fixed',
      value: 1_000,
      every_days: 7,
    });
    const [instalment] = await obligationsOf(api, plan.id);
    assert.ok(instalment);
    // The disputes API is built beside this; an open dispute is written as it will write one.
    const disputeId = newId('dispute', new Date(NOW));
    await t.ctx.db
      .insertInto('disputes')
      .values({
        id: disputeId,
        workspace_id: workspaceId,
        mode: 'test',
        track_id: plan.id,
        obligation_id: instalment.id,
        payment_id: null,
        customer_id: customer.id,
        reason: 'wrong_amount',
        note: null,
        status: 'open',
        resolution: null,
        resolution_note: null,
        created_at: NOW,
        resolved_at: null,
        updated_at: NOW,
      })
      .execute();

    // Periods on 27 Dec and 3 Jan fall during the dispute: skipped.
    await advance(api, { to: lagosDay('2028-01-05') });
    assert.equal((await feesOf(api, plan.id)).length, 0);
    assert.equal((await planOf(api, plan.id)).balance, 100_000);

    await t.ctx.db
      .updateTable('disputes')
      .set({ status: 'rejected', resolved_at: NOW })
      .where('id', '=', disputeId)
      .execute();
    await advance(api, { to: lagosDay('2028-01-12') });
    assert.deepEqual(
      (await feesOf(api, plan.id)).map((f) => [f.due_date, f.amount]),
      [['2028-01-10', 1_000]],
    );
    assert.equal((await planOf(api, plan.id)).balance, 101_000);
  });

  test('a promise to pay does not stop fees; a paused schedule charges none', async () => {
    const { api } = await lagos();
    const { plan, schedule } = await planWithFees(api, 100_000, 1, {
      type: 'fixed',
      value: 1_000,
      every_days: 7,
    });
    const paused = await api.patch(`/collection-schedules/${schedule.id}`, { action: 'pause' });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    await advance(api, { to: lagosDay('2028-01-05') });
    assert.equal((await feesOf(api, plan.id)).length, 0);
    const resumed = await api.patch(`/collection-schedules/${schedule.id}`, { action: 'resume' });
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    await advance(api, { to: lagosDay('2028-01-11') });
    assert.deepEqual(
      (await feesOf(api, plan.id)).map((f) => f.due_date),
      ['2028-01-10'],
    );
  });

  test('a fee sweep racing a payment: the fee is charged or not, never half, and the balance is exact', async () => {
    for (let round = 0; round < 4; round++) {
      const { api, workspaceId } = await lagos();
      const { plan } = await planWithFees(api, 100_000, 1, { type: 'fixed', value: 3_000 });
      await advance(api, { to: new Date(Date.parse(lagosDay('2027-12-27')) - 1).toISOString() });
      const sweep = runSweepsNow(t.ctx, {
        mode: 'test',
        workspaceId,
        now: new Date(Date.parse(lagosDay('2027-12-27')) + 60_000),
      });
      const [, paid] = await Promise.all([
        sweep,
        api.post('/payments', { trackId: plan.id, amount: 100_000, method: 'cash' }),
      ]);
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      const after = await planOf(api, plan.id);
      const fees = await feesOf(api, plan.id);
      assert.ok(fees.length <= 1);
      const charged = fees.reduce((sum, f) => sum + f.amount, 0);
      assert.equal(after.amount, 100_000 + charged);
      assert.equal(after.balance, after.amount - after.amountPaid);
      assert.equal(after.balance, charged);
      assert.equal((await ledgerOf(api, plan.id, 'fee.charged')).length, fees.length);
    }
  });

  test('two sweeps at once charge each period once', async () => {
    const { api, workspaceId } = await lagos();
    const { plan } = await planWithFees(api, 100_000, 1, { type: 'fixed', value: 1_000, every_days: 1 });
    await advance(api, { to: new Date(Date.parse(lagosDay('2027-12-27')) - 1).toISOString() });
    const scope = {
      mode: 'test' as const,
      workspaceId,
      now: new Date(Date.parse(lagosDay('2028-01-01')) + 1),
    };
    await Promise.all([runSweepsNow(t.ctx, scope), runSweepsNow(t.ctx, scope), runSweepsNow(t.ctx, scope)]);
    assert.deepEqual(
      (await feesOf(api, plan.id)).map((f) => f.due_date),
      ['2027-12-27', '2027-12-28', '2027-12-29', '2027-12-30', '2027-12-31', '2028-01-01'],
    );
    assert.equal((await planOf(api, plan.id)).balance, 106_000);
  });
});

describe('late fee policies', () => {
  test('the workspace default is copied onto schedules made without their own; their own wins', async () => {
    const { api } = await lagos();
    const set = await api.patch('/account', {
      lateFeeDefault: { type: 'percent', value: 1.25, everyDays: 14, graceDays: 3, capPerPlan: 50_000 },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const expected = {
      type: 'percent',
      value: 1.25,
      everyDays: 14,
      graceDays: 3,
      capPerObligation: null,
      capPerPlan: 50_000,
    };
    assert.deepEqual(set.body.data.lateFeeDefault, expected);
    assert.deepEqual((await api.get('/account')).body.data.lateFeeDefault, expected);

    const { schedule: copied } = await planWithFees(api, 100_000, 1, undefined);
    assert.deepEqual(copied.late_fee, {
      type: 'percent',
      value: 1.25,
      every_days: 14,
      grace_days: 3,
      cap_per_obligation: null,
      cap_per_plan: 50_000,
    });
    const { schedule: none } = await planWithFees(api, 100_000, 1, null);
    assert.equal(none.late_fee, null);

    assert.equal((await api.patch('/account', { lateFeeDefault: null })).body.data.lateFeeDefault, null);
    const kept = await api.get(`/collection-schedules/${copied.id}`);
    assert.equal(kept.body.data.late_fee.value, 1.25);
  });

  test('PATCH sets, changes and removes a schedule policy; its open instalments follow from now', async () => {
    const { api, workspaceId } = await lagos();
    const { plan, schedule } = await planWithFees(api, 100_000, 1, null);
    await advance(api, { to: lagosDay('2028-01-05') });
    assert.equal((await feesOf(api, plan.id)).length, 0);

    const set = await api.patch(`/collection-schedules/${schedule.id}`, {
      late_fee: { type: 'fixed', value: 700, every_days: 7 },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.data.late_fee.value, 700);
    const [updated] = (await eventsOf(workspaceId, 'schedule.updated')).slice(-1);
    assert.equal(updated?.late_fee?.value, 700);
    // Periods before the policy (27 Dec, 3 Jan) are not charged; 10 Jan is.
    await advance(api, { to: lagosDay('2028-01-11') });
    assert.deepEqual(
      (await feesOf(api, plan.id)).map((f) => [f.due_date, f.amount]),
      [['2028-01-10', 700]],
    );

    const removed = await api.patch(`/collection-schedules/${schedule.id}`, { late_fee: null });
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    assert.equal(removed.body.data.late_fee, null);
    await advance(api, { days: 30 });
    assert.equal((await feesOf(api, plan.id)).length, 1);

    const both = await api.patch(`/collection-schedules/${schedule.id}`, {
      late_fee: { type: 'fixed', value: 700, every_days: 7 },
      action: 'cancel',
    });
    assert.equal(both.status, 200, JSON.stringify(both.body));
    const onCancelled = await api.patch(`/collection-schedules/${schedule.id}`, { late_fee: null });
    assert.equal(onCancelled.status, 409, JSON.stringify(onCancelled.body));
    const empty = await api.patch(`/collection-schedules/${schedule.id}`, {});
    assert.equal(empty.status, 422);
    assert.ok(empty.body.error.details.fields.action);
  });

  test('every bad late_fee part is a validation_error naming it, and nothing is made', async () => {
    const { api } = await lagos();
    const plan = await newTrack(api, { amount: 100_000 });
    const base = {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'one_time',
      fixed_amount: 100_000,
      start_date: '2027-12-26T09:00:00Z',
    };
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'fixed', value: 0 }, 'late_fee.value'],
      [{ type: 'fixed', value: 10.5 }, 'late_fee.value'],
      [{ type: 'percent', value: 100.01 }, 'late_fee.value'],
      [{ type: 'percent', value: 2.555 }, 'late_fee.value'],
      [{ type: 'percent', value: -1 }, 'late_fee.value'],
      [{ type: 'flat', value: 5 }, 'late_fee.type'],
      [{ type: 'fixed' }, 'late_fee.value'],
      [{ type: 'fixed', value: 100, every_days: 0 }, 'late_fee.every_days'],
      [{ type: 'fixed', value: 100, every_days: 366 }, 'late_fee.every_days'],
      [{ type: 'fixed', value: 100, grace_days: -1 }, 'late_fee.grace_days'],
      [{ type: 'fixed', value: 100, grace_days: 1.5 }, 'late_fee.grace_days'],
      [{ type: 'fixed', value: 100, cap_per_obligation: 0 }, 'late_fee.cap_per_obligation'],
      [{ type: 'fixed', value: 100, cap_per_plan: -5 }, 'late_fee.cap_per_plan'],
      [{ type: 'fixed', value: 100, extra: 1 }, 'late_fee.extra'],
    ];
    for (const [lateFee, field] of cases) {
      const res = await api.post('/collection-schedules', { ...base, late_fee: lateFee });
      assert.equal(res.status, 422, `${JSON.stringify(lateFee)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'validation_error');
      assert.ok(
        res.body.error.details.fields[field],
        `${JSON.stringify(lateFee)}: ${JSON.stringify(res.body)}`,
      );
    }
    const listed = await api.get(`/collection-schedules?target_id=${plan.id}`);
    assert.equal(listed.body.data.items.length, 0);

    const schedule = await newSchedule(api, base);
    const patched = await api.patch(`/collection-schedules/${schedule.id}`, {
      late_fee: { type: 'percent', value: 0.001 },
    });
    assert.equal(patched.status, 422);
    assert.ok(patched.body.error.details.fields['late_fee.value']);
    assert.equal((await api.get(`/collection-schedules/${schedule.id}`)).body.data.late_fee, null);
  });

  test('every bad lateFeeDefault part is a validation_error naming it, and nothing changes', async () => {
    const { api } = await lagos();
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'fixed', value: 1.5 }, 'lateFeeDefault.value'],
      [{ type: 'percent', value: 150 }, 'lateFeeDefault.value'],
      [{ type: 'fixed', value: 100, everyDays: 0 }, 'lateFeeDefault.everyDays'],
      [{ type: 'fixed', value: 100, graceDays: 400 }, 'lateFeeDefault.graceDays'],
      [{ type: 'fixed', value: 100, capPerObligation: 0 }, 'lateFeeDefault.capPerObligation'],
      [{ type: 'fixed', value: 100, capPerPlan: 2.5 }, 'lateFeeDefault.capPerPlan'],
      [{ type: 'fixed', value: 100, every_days: 3 }, 'lateFeeDefault.every_days'],
      [{ value: 100 }, 'lateFeeDefault.type'],
    ];
    for (const [lateFeeDefault, field] of cases) {
      const res = await api.patch('/account', { lateFeeDefault });
      assert.equal(res.status, 422, `${JSON.stringify(lateFeeDefault)}: ${JSON.stringify(res.body)}`);
      assert.ok(
        res.body.error.details.fields[field],
        `${JSON.stringify(lateFeeDefault)}: ${JSON.stringify(res.body)}`,
      );
    }
    assert.equal((await api.get('/account')).body.data.lateFeeDefault, null);
  });
});
