import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newSchedule } from '../helpers/collections.js';
import { newTrack, newWorkspace } from '../helpers/factories.js';

// The collections workflow end to end through its own APIs: late fees charged by the test clock, a dispute that
// holds them back, a promise, a waiver, a write-off and its figures in the summary, the overdue report and the
// customer's statement, each exact.

const NOW = '2027-12-20T12:00:00.000Z';

type Row = Record<string, any>;

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

async function ok(res: { status: number; body: any }, status = 200) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  return res.body.data as Row;
}

const advanceTo = async (api: Client, to: string) =>
  ok(await api.post('/account/test-clock/advance', { to }));

async function obligationsOf(api: Client, trackId: string) {
  const data = await ok(await api.get(`/obligations?track_id=${trackId}&limit=100`));
  return data.items as Row[];
}

/** A fridge of 90,000 in three monthly instalments of 30,000 due 5 Jan, 5 Feb and 5 Mar 2028 (Lagos), a fee of
 * 1,000 every 30 days from the day an instalment is overdue. */
async function fridge(api: Client) {
  const plan = await newTrack(api, { amount: 90_000, title: 'Fridge' });
  const schedule = await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'monthly',
    fixed_amount: 30_000,
    start_date: '2028-01-05T09:00:00Z',
    end_date: '2028-03-05T09:00:00Z',
    late_fee: { type: 'fixed', value: 1_000, every_days: 30, grace_days: 0 },
  });
  const instalments = (await obligationsOf(api, plan.id)).map((o) => o.id as string);
  return { plan, schedule, instalments };
}

describe('the collections workflow through its APIs', () => {
  test('fees, a dispute that holds them, a promise, a waiver and a write-off: the reports and the statement exact', async () => {
    const { api } = await newWorkspace(t, { timezone: 'Africa/Lagos' });
    const { plan, instalments } = await fridge(api);
    const [january, february, march] = instalments as [string, string, string];

    // A dispute on February's instalment before it falls due: no fee on it while open.
    const dispute = await ok(
      await api.post('/disputes', {
        obligationId: february,
        reason: 'wrong_amount',
        note: 'priced at 28,000',
      }),
      201,
    );
    await advanceTo(api, '2028-02-20T12:00:00Z');
    let fees = (await obligationsOf(api, plan.id)).filter((o) => o.kind === 'fee');
    // January's: 6 Jan and 5 Feb; February's (overdue from 6 Feb) is disputed.
    assert.deepEqual(
      fees.map((f) => [f.fee_of, f.due_date, f.amount]),
      [
        [january, '2028-01-06', 1_000],
        [january, '2028-02-05', 1_000],
      ],
    );
    const rejected = await ok(
      await api.post(`/disputes/${dispute.id}/resolve`, { outcome: 'rejected', note: 'price agreed' }),
    );
    assert.equal(rejected.status, 'rejected');
    // After the dispute: January's third on 6 Mar, March's first on 6 Mar, February's on 7 Mar (its 6 Feb
    // period fell in the dispute and is not charged later).
    await advanceTo(api, '2028-03-07T12:00:00Z');
    fees = (await obligationsOf(api, plan.id)).filter((o) => o.kind === 'fee');
    assert.deepEqual(
      fees.map((f) => [f.fee_of, f.due_date]).sort(),
      [
        [january, '2028-01-06'],
        [january, '2028-02-05'],
        [january, '2028-03-06'],
        [february, '2028-03-07'],
        [march, '2028-03-06'],
      ].sort(),
    );

    // A promise of 10,000 by 10 March, on the plan.
    const promise = await ok(
      await api.post('/promises', { trackId: plan.id, amount: 10_000, date: '2028-03-10', note: 'salary' }),
      201,
    );
    assert.equal(promise.status, 'open');

    // The first fee waived; 5,000 written off.
    const waived = await ok(
      await api.post(`/obligations/${fees[0]!.id}/waive`, { reason: 'first time late' }),
    );
    assert.equal(waived.status, 'waived');
    const written = await ok(
      await api.post(`/tracks/${plan.id}/write-off`, { amount: 5_000, reason: 'fridge door dented' }),
    );
    assert.equal(written.balance, 90_000 + 5_000 - 1_000 - 5_000);
    assert.equal(written.amount - written.amountPaid, written.balance);

    const summary = await ok(await api.get('/reports/summary?from=2028-01-01T00:00:00Z'));
    const naira = (summary.currencies as Row[]).find((c) => c.currency === 'NGN')!;
    assert.equal(naira.feesCharged, 5_000);
    assert.equal(naira.feesWaived, 1_000);
    assert.equal(naira.writtenOff, 5_000);
    assert.equal(naira.outstanding, 89_000);

    // The write-off took 5,000 from the open obligations latest due first: February's fee of 7 Mar, the two fees
    // of 6 Mar (written off), then 2,000 of March's instalment. Overdue now (7 Mar): January and February 30,000
    // each, March 28,000 and the fee of 5 Feb.
    const open = await obligationsOf(api, plan.id);
    assert.deepEqual(
      open
        .filter((o) => o.status === 'written_off')
        .map((o) => [o.kind, o.due_date])
        .sort(),
      [
        ['fee', '2028-03-06'],
        ['fee', '2028-03-06'],
        ['fee', '2028-03-07'],
      ],
    );
    assert.equal(open.find((o) => o.id === march)!.amount, 28_000);
    const overdue = await ok(await api.get('/reports/overdue?limit=100'));
    const account = (overdue.accounts.items as Row[]).find((a) => a.trackId === plan.id)!;
    assert.equal(account.overdueAmount, 30_000 + 30_000 + 28_000 + 1_000);
    assert.equal(account.promised, 10_000);
    assert.equal(account.disputed, 0);

    const statement = await ok(
      await api.get(`/customers/${plan.customerId}/statement?from=2028-01-01&to=2028-03-07`),
    );
    const lines = (statement.currencies as Row[])
      .flatMap((c: Row) => (c.lines ?? []) as Row[])
      .map((l: Row) => [l.type, l.amount]);
    assert.deepEqual(
      lines.filter((line: unknown[]) => line[0] !== 'charge'),
      [
        ['fee', 1_000],
        ['fee', 1_000],
        ['fee', 1_000],
        ['fee', 1_000],
        ['fee', 1_000],
        ['fee_waived', -1_000],
        ['write_off', -5_000],
      ],
    );
  });

  test('a write-off and its reversal net out in the summary; writing off the whole balance completes the plan', async () => {
    const { api } = await newWorkspace(t, { timezone: 'Africa/Lagos' });
    const plan = await newTrack(api, { amount: 50_000, title: 'Phone' });
    await ok(await api.post(`/tracks/${plan.id}/write-off`, { amount: 20_000, reason: 'promo' }));
    await ok(await api.post(`/tracks/${plan.id}/write-off/reverse`, {}));
    let naira = ((await ok(await api.get('/reports/summary'))).currencies as Row[])[0]!;
    assert.equal(naira.writtenOff, 0);
    assert.equal(naira.outstanding, 50_000);
    const written = await ok(await api.post(`/tracks/${plan.id}/write-off`, { reason: 'customer left' }));
    assert.equal(written.status, 'completed');
    naira = ((await ok(await api.get('/reports/summary'))).currencies as Row[])[0]!;
    assert.equal(naira.writtenOff, 50_000);
    assert.equal(naira.outstanding, 0);
  });

  test('every new write answers the same to a replay of its Idempotency-Key, and does its work once', async () => {
    const { api } = await newWorkspace(t, { timezone: 'Africa/Lagos' });
    const { plan } = await fridge(api);
    await advanceTo(api, '2028-01-10T12:00:00Z');
    const fee = (await obligationsOf(api, plan.id)).find((o) => o.kind === 'fee')!;
    let n = 0;
    async function twice(path: string, body: Record<string, unknown>, status = 200) {
      const key = { 'Idempotency-Key': `collections-${++n}` };
      const first = await api.post(path, body, key);
      assert.equal(first.status, status, `${path}: ${JSON.stringify(first.body)}`);
      const again = await api.post(path, body, key);
      assert.equal(again.status, status, `${path} replayed: ${JSON.stringify(again.body)}`);
      assert.deepEqual(again.body.data, first.body.data, path);
      return first.body.data as Row;
    }
    const promise = await twice('/promises', { trackId: plan.id, amount: 1_000, date: '2028-01-20' }, 201);
    await twice(`/promises/${promise.id}/cancel`, {});
    const dispute = await twice('/disputes', { trackId: plan.id, reason: 'other' }, 201);
    await twice(`/disputes/${dispute.id}/resolve`, { outcome: 'rejected' });
    await twice(`/obligations/${fee.id}/waive`, { reason: 'goodwill' });
    await twice(`/tracks/${plan.id}/write-off`, { amount: 2_000, reason: 'promo' });
    await twice(`/tracks/${plan.id}/write-off/reverse`, {});
    const quote = await ok(await api.get(`/tracks/${plan.id}/settlement-quote`));
    const paid = await twice(
      '/payments',
      { trackId: plan.id, amount: quote.amount, method: 'cash', settlementQuoteId: quote.id },
      201,
    );
    assert.equal(paid.amount, 90_000);
    const after = await ok(await api.get(`/tracks/${plan.id}`));
    assert.deepEqual([after.status, after.balance], ['completed', 0]);
    const ledger = (await ok(await api.get(`/tracks/${plan.id}/ledger?limit=100`))).items as Row[];
    const count = (type: string) => ledger.filter((e) => e.type === type).length;
    assert.deepEqual(
      ['fee.charged', 'fee.waived', 'plan.written_off', 'plan.write_off_reversed', 'payment.recorded'].map(
        count,
      ),
      [1, 1, 1, 1, 1],
    );
  });
});
