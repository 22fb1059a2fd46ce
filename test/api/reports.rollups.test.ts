import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import { ManualClock } from '../../src/lib/clock.js';
import { rollupSweep } from '../../src/modules/reports/rollups.sweep.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

const NOW = '2028-06-30T12:07:30.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

/** What the worker's `reports.rollup` sweep does for one workspace. */
const fold = (workspaceId: string) =>
  rollupSweep.run(t.ctx, { mode: 'test', now: t.clock.now(), workspaceId });

async function report(api: Client, path: string) {
  const res = await api.get(path);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

/** Periods whose edges fall inside quarter hours, on them, and within one quarter hour. */
const PATHS = [
  '/reports/summary',
  '/reports/summary?from=2028-02-10T22:59:30Z&to=2028-03-10T12:07:00Z',
  '/reports/summary?from=2028-02-10T23:00:00Z&to=2028-02-10T23:15:00Z',
  '/reports/summary?from=2028-01-10T12:00:00Z',
  '/reports/collections',
  '/reports/collections?groupBy=month',
  '/reports/collections?from=2028-02-10T22:59:30Z&to=2028-02-10T23:10:00Z',
  '/reports/collections?from=2028-02-10T23:00:00Z&to=2028-03-10T12:00:00.001Z&groupBy=week',
  '/reports/overdue',
];

const snapshot = async (api: Client) => Promise.all(PATHS.map((path) => report(api, path)));

describe('report rollup', () => {
  test('reports give the same figures before and after the rollup folds the rows in, and after a folded payment is reversed', async () => {
    const { api, workspaceId } = await newWorkspace(t, { timezone: 'Africa/Lagos' });
    const ada = await newCustomer(api, { name: 'Ada' });
    const naira = await newTrack(api, { customerId: ada.id, amount: 1_000_000 });
    const dollars = await newTrack(api, { customerId: ada.id, amount: 500_000, currency: 'USD' });
    const paidAt = [
      '2028-02-10T22:59:00Z',
      '2028-02-10T22:59:59.999Z',
      '2028-02-10T23:00:00Z',
      '2028-02-10T23:14:59Z',
      '2028-02-29T23:30:00Z',
      '2028-03-10T12:00:00Z',
      NOW,
    ];
    const payments = [];
    for (const [i, at] of paidAt.entries()) {
      payments.push(
        await newPayment(api, naira.id, {
          amount: 100 * (i + 1),
          paidAt: at,
          method: i % 2 ? 'card' : 'cash',
        }),
      );
      await newPayment(api, dollars.id, { amount: 10 * (i + 1), paidAt: at });
    }
    const [undone] = payments;
    assert.equal((await api.post(`/payments/${undone?.id}/reverse`, {})).status, 200);
    const generator = await newTrack(api, { customerId: ada.id, amount: 90_000, title: 'Generator' });
    const schedule = await api.post('/collection-schedules', {
      target_type: 'payment_plan',
      target_id: generator.id,
      frequency: 'monthly',
      fixed_amount: 30_000,
      start_date: '2028-07-05T09:00:00Z',
      end_date: '2028-09-05T09:00:00Z',
    });
    assert.equal(schedule.status, 201, JSON.stringify(schedule.body));
    await newPayment(api, generator.id, { amount: 10_000 });
    // Obligations due 29 Jun (the day before: read as they are), 29 May and 29 Apr (older: from the rollup once
    // folded); the payment goes to the oldest.
    const behind = await newTrack(api, { customerId: ada.id, amount: 60_000, title: 'Freezer' });
    const late = await api.post('/collection-schedules', {
      target_type: 'payment_plan',
      target_id: behind.id,
      frequency: 'monthly',
      fixed_amount: 20_000,
      start_date: '2028-04-29T09:00:00Z',
      end_date: '2028-06-29T09:00:00Z',
    });
    assert.equal(late.status, 201, JSON.stringify(late.body));
    await newPayment(api, behind.id, { amount: 5_000 });

    const unfolded = await snapshot(api);
    const overdueNaira = unfolded[8].currencies.find((c: { currency: string }) => c.currency === 'NGN');
    assert.deepEqual(overdueNaira, {
      currency: 'NGN',
      total: 55_000,
      buckets: { '1-30': 20_000, '31-60': 20_000, '61-90': 15_000, '91+': 0 },
      promised: 0,
      disputed: 0,
    });
    const nairaNow = () => unfolded[0].currencies.find((c: { currency: string }) => c.currency === 'NGN');
    assert.equal(nairaNow().expectedNext30Days, 20_000, 'what the obligation due on 5 Jul still owes');
    const all = unfolded[0].currencies.find((c: { currency: string }) => c.currency === 'NGN');
    assert.equal(all.collected, 2_700 + 10_000 + 5_000, 'every payment but the reversed one');
    assert.ok((await fold(workspaceId)) > 0, 'the sweep folded rows in');
    assert.deepEqual(await snapshot(api), unfolded, 'the rollup gives what the rows give');
    assert.equal(await fold(workspaceId), 0, 'nothing is folded twice');

    const folded = payments[3];
    assert.equal((await api.post(`/payments/${folded?.id}/reverse`, {})).status, 200);
    await newPayment(api, generator.id, { amount: 5_000 });
    const afterReversal = await snapshot(api);
    const week = afterReversal[7].currencies.find((c: { currency: string }) => c.currency === 'NGN');
    assert.equal(
      week.total,
      300 + 500 + 600,
      'the reversed payment is out of its period before it is folded again',
    );
    assert.notDeepEqual(afterReversal, unfolded);
    const summaryNow = afterReversal[0].currencies.find((c: { currency: string }) => c.currency === 'NGN');
    assert.equal(
      summaryNow.expectedNext30Days,
      15_000,
      'a payment into a folded obligation counts before the next fold',
    );
    await fold(workspaceId);
    assert.deepEqual(await snapshot(api), afterReversal, 'and after');
  });

  test('plans and customers are counted per status the same before and after the fold, and follow every change made after it', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const counts = async () => {
      const { customers, plans } = await report(api, '/reports/summary');
      return { customers, plans };
    };
    const ada = await newCustomer(api, { name: 'Ada' });
    const bola = await newCustomer(api, { name: 'Bola' });
    const chidi = await newCustomer(api, { name: 'Chidi' });
    const fridge = await newTrack(api, { customerId: ada.id, amount: 10_000 });
    const stove = await newTrack(api, { customerId: ada.id, amount: 20_000 });
    const radio = await newTrack(api, { customerId: bola.id, amount: 5_000 });
    const paidOff = await newPayment(api, radio.id, { amount: 5_000 });
    assert.equal((await api.delete(`/tracks/${stove.id}`)).status, 200);
    assert.equal((await api.delete(`/customers/${chidi.id}`)).status, 200);

    const before = await counts();
    assert.deepEqual(before, {
      customers: { total: 3, active: 2 },
      plans: { active: 1, completed: 1, archived: 1 },
    });
    assert.ok((await fold(workspaceId)) > 0);
    assert.deepEqual(await counts(), before, 'the rollup counts what the rows count');

    // Each folded row changes status: completed to active, active to completed, then to archived.
    assert.equal((await api.post(`/payments/${paidOff.id}/reverse`, {})).status, 200);
    await newPayment(api, fridge.id, { amount: 10_000 });
    assert.equal((await api.delete(`/tracks/${radio.id}`)).status, 200);
    assert.equal((await api.delete(`/customers/${bola.id}`)).status, 200);
    const changed = {
      customers: { total: 3, active: 1 },
      plans: { active: 0, completed: 1, archived: 2 },
    };
    assert.deepEqual(await counts(), changed, 'changes count before the next fold');
    assert.ok((await fold(workspaceId)) > 0);
    assert.deepEqual(await counts(), changed, 'and after it');
    assert.equal(await fold(workspaceId), 0);
  });

  test('folds of the same plans at once, while the plans change status, count each change once', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const plans: { id: string; paymentId: string | null }[] = [];
    for (let i = 0; i < 40; i++) {
      plans.push({
        id: (await newTrack(api, { customerId: customer.id, amount: 1_000 })).id,
        paymentId: null,
      });
    }
    // Half the plans are paid off at first: from then on each round turns every plan over (paid off, or active
    // again), while several folds (two test clock advances and the worker, say) count them at once.
    for (const plan of plans.slice(0, 20))
      plan.paymentId = (await newPayment(api, plan.id, { amount: 1_000 })).id;
    for (let round = 0; round < 6; round++) {
      const turnOver = async (plan: (typeof plans)[number]) => {
        if (plan.paymentId) {
          assert.equal((await api.post(`/payments/${plan.paymentId}/reverse`, {})).status, 200);
          plan.paymentId = null;
        } else {
          plan.paymentId = (await newPayment(api, plan.id, { amount: 1_000 })).id;
        }
      };
      const folds = Array.from({ length: 6 }, () => fold(workspaceId));
      await Promise.all([...plans.map(turnOver), ...folds]);
      await Promise.all(Array.from({ length: 3 }, () => fold(workspaceId)));
      assert.deepEqual((await report(api, '/reports/summary')).plans, {
        active: 20,
        completed: 20,
        archived: 0,
      });
    }
  });

  test('exact under concurrent payments, reversals and folds: every report read sees each payment once', async () => {
    const { api, workspaceId } = await newWorkspace(t, { timezone: 'Africa/Lagos' });
    const plan = await newTrack(api, { amount: 100_000_000 });
    const made: { id: string; amount: number }[] = [];
    const reversed = new Set<string>();
    let writing = true;
    const reads: Promise<void>[] = [];
    const checkOne = async () => {
      const data = await report(api, '/reports/summary');
      const ngn = data.currencies[0];
      assert.equal(
        ngn.billed - ngn.collected,
        ngn.outstanding,
        'one snapshot: billed less collected is owed',
      );
      const collections = await report(api, '/reports/collections?groupBy=month');
      const total = collections.currencies[0]?.total ?? 0;
      assert.equal(
        collections.currencies[0]?.periods.reduce((sum: number, p: { total: number }) => sum + p.total, 0) ??
          0,
        total,
      );
    };
    // Each loop lets the others' I/O in between: on SQLite a query resolves without leaving the microtask queue.
    const reader = async () => {
      while (writing) {
        await checkOne();
        await setImmediate();
      }
    };
    const folder = async () => {
      while (writing) {
        await fold(workspaceId);
        await setImmediate();
      }
    };
    reads.push(reader(), reader(), folder());
    const writer = async (n: number) => {
      for (let i = 0; i < 15; i++) {
        const amount = 1 + ((n * 7919 + i * 104_729) % 9_000);
        const paidAt = new Date(
          Date.parse('2028-06-01T00:00:00Z') + (n * 15 + i) * 11 * 60_000,
        ).toISOString();
        const payment = await newPayment(api, plan.id, { amount, paidAt, method: i % 3 ? 'cash' : 'card' });
        made.push({ id: payment.id, amount });
        if (i % 4 === 3) {
          const earlier = made[Math.floor(made.length / 2)];
          if (earlier && !reversed.has(earlier.id)) {
            reversed.add(earlier.id);
            const res = await api.post(`/payments/${earlier.id}/reverse`, {});
            assert.equal(res.status, 200, JSON.stringify(res.body));
          }
        }
      }
    };
    try {
      await Promise.all([0, 1, 2, 3].map(writer));
    } finally {
      writing = false;
      await Promise.allSettled(reads);
    }
    await Promise.all(reads);

    const kept = made.filter((p) => !reversed.has(p.id));
    const expected = kept.reduce((sum, p) => sum + p.amount, 0);
    for (const foldFirst of [false, true]) {
      if (foldFirst) await fold(workspaceId);
      const ngn = (await report(api, '/reports/summary')).currencies[0];
      assert.equal(ngn.collected, expected);
      assert.equal(ngn.outstanding, 100_000_000 - expected);
      const collections = (await report(api, '/reports/collections')).currencies[0];
      assert.equal(collections.total, expected);
      assert.equal(collections.count, kept.length);
    }
  });
});
