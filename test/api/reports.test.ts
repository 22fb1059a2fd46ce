import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { clockAt } from '../helpers/clock-at.js';
import { newCustomer, newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';
import { holdWrite } from '../helpers/held-write.js';

const NOW = '2028-06-30T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const at = clockAt(() => t, NOW);

const lagos = () => newWorkspace(t, { timezone: 'Africa/Lagos' });

async function report(api: Client, path: string) {
  const res = await api.get(path);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

const figures = (data: { currencies: Record<string, unknown>[] }, currency: string) =>
  data.currencies.find((c) => c.currency === currency);

/** An NGN plan and a USD plan with payments over the first half of 2028, one of them reversed. */
async function book(api: Client) {
  const ada = await newCustomer(api, { name: 'Ada' });
  const bola = await newCustomer(api, { name: 'Bola' });
  const gone = await newCustomer(api, { name: 'Gone' });
  assert.equal((await api.delete(`/customers/${gone.id}`)).status, 200);
  const naira = await at('2028-01-10T12:00:00.000Z', () =>
    newTrack(api, { customerId: ada.id, amount: 100_000, title: 'Fridge' }),
  );
  const dollars = await at('2028-01-10T12:00:00.000Z', () =>
    newTrack(api, { customerId: bola.id, amount: 50_000, currency: 'USD', title: 'Laptop' }),
  );
  await at('2028-02-10T12:00:00.000Z', async () => {
    await newPayment(api, naira.id, { amount: 30_000, method: 'cash' });
    await newPayment(api, dollars.id, { amount: 10_000, method: 'card' });
  });
  const reversed = await at('2028-03-10T12:00:00.000Z', () =>
    newPayment(api, naira.id, { amount: 20_000, method: 'bank_transfer' }),
  );
  await at('2028-03-11T12:00:00.000Z', async () => {
    assert.equal((await api.post(`/payments/${reversed.id}/reverse`, {})).status, 200);
  });
  return { naira, dollars };
}

/** A plan of 90,000 in three monthly instalments from 5 Jul 2028 (the clock is on 30 Jun), 10,000 of it paid. */
async function generator(api: Client, currency = 'NGN') {
  const plan = await newTrack(api, { amount: 90_000, title: 'Generator', currency });
  const res = await api.post('/collection-schedules', {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'monthly',
    fixed_amount: 30_000,
    start_date: '2028-07-05T09:00:00Z',
    end_date: '2028-09-05T09:00:00Z',
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  await newPayment(api, plan.id, { amount: 10_000 });
}

const NO_AGEING = { '1-30': 0, '31-60': 0, '61-90': 0, '91+': 0 };

describe('GET /reports/summary', () => {
  test('per currency, never summed: billed, collected less reversals, outstanding, collection rate and DSO', async () => {
    const { api } = await lagos();
    await book(api);
    const data = await report(api, '/reports/summary');
    assert.equal(data.from, null);
    assert.equal(data.to, NOW);
    assert.equal(data.timezone, 'Africa/Lagos');
    assert.deepEqual(data.customers, { total: 3, active: 2 });
    assert.deepEqual(data.plans, { active: 2, completed: 0, archived: 0 });
    assert.deepEqual(
      data.currencies.map((c: Record<string, unknown>) => c.currency),
      ['NGN', 'USD'],
    );
    // 172 days from the first entry (10 Jan, 12:00) to now (30 Jun, 12:00): DSO = 70,000 / 100,000 × 172.
    assert.deepEqual(figures(data, 'NGN'), {
      currency: 'NGN',
      billed: 100_000,
      collected: 30_000,
      outstanding: 70_000,
      overdue: 0,
      overdueBuckets: NO_AGEING,
      collectionRate: 0.3,
      dso: 120.4,
      expectedNext30Days: 0,
      writtenOff: 0,
      feesCharged: 0,
      feesWaived: 0,
    });
    assert.deepEqual(figures(data, 'USD'), {
      currency: 'USD',
      billed: 50_000,
      collected: 10_000,
      outstanding: 40_000,
      overdue: 0,
      overdueBuckets: NO_AGEING,
      collectionRate: 0.2,
      dso: 137.6,
      expectedNext30Days: 0,
      writtenOff: 0,
      feesCharged: 0,
      feesWaived: 0,
    });
  });

  test('a period counts what happened in it; outstanding is as of its end; an empty period has no money in it', async () => {
    const { api } = await lagos();
    await book(api);
    const feb = await report(api, '/reports/summary?from=2028-02-01T00:00:00Z&to=2028-03-11T00:00:00Z');
    assert.deepEqual(figures(feb, 'NGN'), {
      currency: 'NGN',
      billed: 0,
      collected: 50_000,
      outstanding: 50_000,
      overdue: 0,
      overdueBuckets: NO_AGEING,
      collectionRate: 0.5,
      dso: null,
      expectedNext30Days: 0,
      writtenOff: 0,
      feesCharged: 0,
      feesWaived: 0,
    });
    const march = await report(api, '/reports/summary?from=2028-03-01T00:00:00Z&to=2028-04-01T00:00:00Z');
    assert.equal(figures(march, 'NGN')?.collected, 0, 'the reversal takes back what its payment brought in');
    const before = await report(api, '/reports/summary?from=2027-01-01T00:00:00Z&to=2027-12-31T00:00:00Z');
    assert.deepEqual(before.currencies, []);
    const refused = await api.get('/reports/summary?from=2028-03-01T00:00:00Z&to=2028-02-01T00:00:00Z');
    assert.equal(refused.status, 422);
    assert.ok('from' in refused.body.error.details.fields);
  });

  test('expected collections: what open obligations due in the next 30 days still owe', async () => {
    const { api } = await lagos();
    await generator(api);
    const data = await report(api, '/reports/summary');
    assert.equal(figures(data, 'NGN')?.expectedNext30Days, 20_000, '5 Jul is in, 5 Aug is not');
    // Made at this very moment (the clock is frozen): counted up to now.
    assert.deepEqual(
      [figures(data, 'NGN')?.billed, figures(data, 'NGN')?.collected, figures(data, 'NGN')?.outstanding],
      [90_000, 10_000, 80_000],
    );
  });
});

describe('GET /reports/expected', () => {
  test("by default the next 30 days by day: the same total as the summary report's expectedNext30Days", async () => {
    const { api } = await lagos();
    await generator(api);
    const data = await report(api, '/reports/expected');
    assert.deepEqual(data, {
      dueFrom: '2028-06-30',
      dueTo: '2028-07-29',
      timezone: 'Africa/Lagos',
      groupBy: 'day',
      currencies: [{ currency: 'NGN', total: 20_000, periods: [{ period: '2028-07-05', amount: 20_000 }] }],
    });
    const summary = await report(api, '/reports/summary');
    assert.equal(figures(summary, 'NGN')?.expectedNext30Days, figures(data, 'NGN')?.total);
  });

  test('by week from Monday and by month, per currency, over the dates asked', async () => {
    const { api } = await lagos();
    await generator(api);
    await generator(api, 'USD');
    const weeks = await report(api, '/reports/expected?due_from=2028-07-01&due_to=2028-09-30&groupBy=week');
    assert.deepEqual(
      weeks.currencies.map((c: { currency: string; total: number; periods: unknown[] }) => [
        c.currency,
        c.total,
        c.periods,
      ]),
      ['NGN', 'USD'].map((currency) => [
        currency,
        80_000,
        [
          { period: '2028-07-03', amount: 20_000 },
          { period: '2028-07-31', amount: 30_000 },
          { period: '2028-09-04', amount: 30_000 },
        ],
      ]),
    );
    const months = await report(api, '/reports/expected?due_from=2028-08-01&due_to=2028-09-05&groupBy=month');
    assert.deepEqual(figures(months, 'NGN')?.periods, [
      { period: '2028-08-01', amount: 30_000 },
      { period: '2028-09-01', amount: 30_000 },
    ]);
  });

  test('dates out of order, a span over 366 days, a bad date or grouping: a validation error naming the field', async () => {
    const { api } = await lagos();
    for (const [query, field] of <[string, string][]>[
      ['due_from=2028-08-01&due_to=2028-07-01', 'due_from'],
      ['due_to=2028-06-01', 'due_to'],
      ['due_from=2028-01-01&due_to=2029-01-02', 'due_to'],
      ['due_from=2028-02-30', 'due_from'],
      ['groupBy=year', 'groupBy'],
    ]) {
      const res = await api.get(`/reports/expected?${query}`);
      assert.equal(res.status, 422, query);
      assert.equal(res.body.error.code, 'validation_error', query);
      assert.ok(
        JSON.stringify(res.body.error).includes(field),
        `${query}: ${JSON.stringify(res.body.error)}`,
      );
    }
  });
});

describe('GET /reports/collections', () => {
  test('by day, week and month in the workspace time zone; by method; reversed payments left out', async () => {
    const { api } = await lagos();
    const plan = await newTrack(api, { amount: 1_000_000 });
    const pay = (amount: number, paidAt: string, method = 'cash') =>
      newPayment(api, plan.id, { amount, paidAt, method });
    await pay(100, '2028-02-10T22:59:00Z'); // 23:59 on 10 Feb in Lagos (Thursday)
    await pay(200, '2028-02-10T23:30:00Z', 'card'); // 00:30 on 11 Feb in Lagos
    await pay(400, '2028-02-13T12:00:00Z'); // Sunday: the same week
    await pay(800, '2028-02-14T00:00:00Z'); // Monday 01:00: the next week
    await pay(1_600, '2028-02-29T23:30:00Z', 'card'); // 1 March in Lagos
    const undone = await pay(3_200, '2028-02-12T12:00:00Z');
    assert.equal((await api.post(`/payments/${undone.id}/reverse`, {})).status, 200);
    const range = 'from=2028-02-01T00:00:00Z&to=2028-04-01T00:00:00Z';

    const byDay = figures(await report(api, `/reports/collections?${range}`), 'NGN');
    assert.equal(byDay?.total, 3_100);
    assert.equal(byDay?.count, 5);
    assert.deepEqual(byDay?.byMethod, [
      { method: 'card', total: 1_800, count: 2 },
      { method: 'cash', total: 1_300, count: 3 },
    ]);
    assert.deepEqual(byDay?.periods, [
      { period: '2028-02-10', total: 100, count: 1 },
      { period: '2028-02-11', total: 200, count: 1 },
      { period: '2028-02-13', total: 400, count: 1 },
      { period: '2028-02-14', total: 800, count: 1 },
      { period: '2028-03-01', total: 1_600, count: 1 },
    ]);
    const byWeek = figures(await report(api, `/reports/collections?${range}&groupBy=week`), 'NGN');
    assert.deepEqual(byWeek?.periods, [
      { period: '2028-02-07', total: 700, count: 3 },
      { period: '2028-02-14', total: 800, count: 1 },
      { period: '2028-02-28', total: 1_600, count: 1 },
    ]);
    const byMonth = figures(await report(api, `/reports/collections?${range}&groupBy=month`), 'NGN');
    assert.deepEqual(byMonth?.periods, [
      { period: '2028-02-01', total: 1_500, count: 4 },
      { period: '2028-03-01', total: 1_600, count: 1 },
    ]);
    const empty = await report(api, '/reports/collections?from=2028-05-01T00:00:00Z&to=2028-05-02T00:00:00Z');
    assert.deepEqual(empty.currencies, []);
    const bad = await api.get('/reports/collections?groupBy=year');
    assert.equal(bad.status, 422);
    assert.ok('groupBy' in bad.body.error.details.fields);
  });

  test('in another zone the same payments fall on other days', async () => {
    const { api } = await newWorkspace(t, { timezone: 'America/New_York' });
    const plan = await newTrack(api, { amount: 10_000 });
    await newPayment(api, plan.id, { amount: 100, paidAt: '2028-02-11T03:00:00Z' }); // 22:00 on 10 Feb in New York
    const day = figures(await report(api, '/reports/collections?from=2028-02-01T00:00:00Z'), 'NGN');
    assert.deepEqual(day?.periods, [{ period: '2028-02-10', total: 100, count: 1 }]);
  });
});

describe('GET /reports/overdue', () => {
  /** Plans due before today (30 Jun in Lagos) by 30, 31, 60, 61, 90 and 91 days, each owing a distinct amount. */
  async function aged(api: Client) {
    const dues: [string, number][] = [
      ['2028-05-31', 1_000],
      ['2028-05-30', 2_000],
      ['2028-05-01', 4_000],
      ['2028-04-30', 8_000],
      ['2028-04-01', 16_000],
      ['2028-03-31', 32_000],
    ];
    const plans = [];
    for (const [dueDate, amount] of dues) {
      plans.push(
        await at('2028-01-01T12:00:00.000Z', () =>
          newTrack(api, { amount, dueDate, title: `Due ${dueDate}` }),
        ),
      );
    }
    await at('2028-01-01T12:00:00.000Z', () =>
      newTrack(api, { amount: 5_000, currency: 'USD', dueDate: '2028-06-01', title: 'Dollars' }),
    );
    await newTrack(api, { amount: 7_000, dueDate: '2028-06-30', title: 'Due today' });
    return plans;
  }

  test('ageing buckets at their boundaries (30/31, 60/61, 90/91 days), per currency', async () => {
    const { api } = await lagos();
    await aged(api);
    const data = await report(api, '/reports/overdue');
    assert.equal(data.asOf, NOW);
    assert.deepEqual(data.currencies, [
      {
        currency: 'NGN',
        total: 63_000,
        buckets: { '1-30': 1_000, '31-60': 6_000, '61-90': 24_000, '91+': 32_000 },
        promised: 0,
        disputed: 0,
      },
      {
        currency: 'USD',
        total: 5_000,
        buckets: { '1-30': 5_000, '31-60': 0, '61-90': 0, '91+': 0 },
        promised: 0,
        disputed: 0,
      },
    ]);
    const summary = await report(api, '/reports/summary');
    for (const { currency, total, buckets } of data.currencies)
      assert.deepEqual(
        [figures(summary, currency)?.overdue, figures(summary, currency)?.overdueBuckets],
        [total, buckets],
        `the summary ages ${currency} as the overdue report does`,
      );
  });

  test('accounts worst first, paginated; a currency filter; the plan due today is not overdue', async () => {
    const { api } = await lagos();
    await aged(api);
    const seen: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    do {
      const page: { accounts: { items: Record<string, unknown>[]; next_cursor: string | null } } =
        await report(api, `/reports/overdue?currency=NGN&limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.accounts.items);
      cursor = page.accounts.next_cursor;
    } while (cursor);
    assert.deepEqual(
      seen.map((a) => [a.overdueAmount, a.oldestDueDate, a.daysOverdue]),
      [
        [32_000, '2028-03-31', 91],
        [16_000, '2028-04-01', 90],
        [8_000, '2028-04-30', 61],
        [4_000, '2028-05-01', 60],
        [2_000, '2028-05-30', 31],
        [1_000, '2028-05-31', 30],
      ],
    );
    assert.equal(seen[0]?.planTitle, 'Due 2028-03-31');
    assert.equal(seen[0]?.customerName, 'Ada Obi');
    const bad = await api.get('/reports/overdue?cursor=nonsense');
    assert.equal(bad.status, 422);
    assert.ok('cursor' in bad.body.error.details.fields);
  });

  test('an obligation past due and unpaid is overdue for what it still owes; as of an earlier time, as it was then', async () => {
    const { api } = await lagos();
    const plan = await at('2028-05-01T12:00:00.000Z', () =>
      newTrack(api, { amount: 60_000, title: 'Scooter' }),
    );
    const res = await at('2028-05-01T12:00:00.000Z', () =>
      api.post('/collection-schedules', {
        target_type: 'payment_plan',
        target_id: plan.id,
        frequency: 'monthly',
        fixed_amount: 20_000,
        start_date: '2028-05-25T09:00:00Z',
        end_date: '2028-07-25T09:00:00Z',
      }),
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    await at('2028-06-10T12:00:00.000Z', () => newPayment(api, plan.id, { amount: 15_000 }));
    // Now: the May obligation owes 5,000 (36 days), June's 20,000 (5 days).
    const now = await report(api, '/reports/overdue');
    assert.deepEqual(now.currencies[0], {
      currency: 'NGN',
      total: 25_000,
      buckets: { '1-30': 20_000, '31-60': 5_000, '61-90': 0, '91+': 0 },
      promised: 0,
      disputed: 0,
    });
    assert.deepEqual(
      now.accounts.items.map((a: Record<string, unknown>) => [
        a.trackId,
        a.overdueAmount,
        a.oldestDueDate,
        a.daysOverdue,
      ]),
      [[plan.id, 25_000, '2028-05-25', 36]],
    );
    // On 1 June, before the payment: May's 20,000, 7 days overdue.
    const then = await report(api, '/reports/overdue?to=2028-06-01T12:00:00Z');
    assert.deepEqual(then.currencies[0]?.buckets, { '1-30': 20_000, '31-60': 0, '61-90': 0, '91+': 0 });
    assert.equal(then.accounts.items[0]?.daysOverdue, 7);
    const summary = await report(api, '/reports/summary');
    assert.equal(figures(summary, 'NGN')?.overdue, 25_000);
  });

  test("a test workspace's reports follow its test clock; reports:read reads; other workspaces see nothing", async () => {
    const { api, workspaceId } = await lagos();
    await at('2028-01-01T12:00:00.000Z', () => newTrack(api, { amount: 1_000, dueDate: '2028-06-29' }));
    assert.equal((await report(api, '/reports/overdue')).accounts.items[0]?.daysOverdue, 1);
    assert.equal((await api.post('/account/test-clock/advance', { days: 30 })).status, 200);
    const later = await report(api, '/reports/overdue');
    assert.equal(later.accounts.items[0]?.daysOverdue, 31);
    assert.deepEqual(later.currencies[0]?.buckets, { '1-30': 0, '31-60': 1_000, '61-90': 0, '91+': 0 });
    const reader = await newKey(t, workspaceId, { scopes: ['reports:read'] });
    assert.equal((await reader.api.get('/reports/summary')).status, 200);
    const stranger = await lagos();
    assert.deepEqual((await report(stranger.api, '/reports/overdue')).currencies, []);
    assert.deepEqual((await report(stranger.api, '/reports/summary')).currencies, []);
  });
});

describe('reports beside writers', () => {
  test('a report answers at once while another connection holds a write open, and does not see that write', async () => {
    const { api, workspaceId } = await lagos();
    const plan = await at('2028-01-10T12:00:00.000Z', () => newTrack(api, { amount: 10_000 }));
    const writer = await holdWrite(
      t,
      (trx) =>
        trx
          .updateTable('tracks')
          .set({ status: 'archived' })
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', plan.id)
          .execute(),
      'rollback',
    );
    try {
      // The writer holds on until the report has answered: a report that waited for its lock would fail with
      // SQLITE_BUSY after the busy timeout instead.
      const data = await report(api, '/reports/summary');
      assert.deepEqual(data.plans, { active: 1, completed: 0, archived: 0 });
    } finally {
      await writer.end();
    }
  });
});
