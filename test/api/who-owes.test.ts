import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { clockAt } from '../helpers/clock-at.js';
import { newSchedule } from '../helpers/collections.js';
import { newCustomer, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

/** The app's frozen clock: 15 March 2028, 13:00 in Lagos (today there is 15 March). */
const NOW = '2028-03-15T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const at = clockAt(() => t, NOW);

const EARLIER = '2028-01-02T09:00:00.000Z';
const lagos = () => newWorkspace(t, { timezone: 'Africa/Lagos' });

async function data(api: Client, path: string) {
  const res = await api.get(path);
  assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Every id of a list, following its cursor with pages of `limit`. */
async function listIds(api: Client, path: string, limit = 100): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page: { items: { id: string }[]; next_cursor: string | null } = await data(
      api,
      `${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    ids.push(...page.items.map((i) => i.id));
    cursor = page.next_cursor;
  } while (cursor);
  return ids;
}

const oneTime = (trackId: string | null, amount: number, day: string) => ({
  target_type: trackId ? 'payment_plan' : 'generic_collection',
  target_id: trackId,
  frequency: 'one_time',
  fixed_amount: amount,
  start_date: `${day}T09:00:00Z`,
});

async function invalid(api: Client, path: string, field: string) {
  const res = await api.get(path);
  assert.equal(res.status, 422, `${path}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.error.code, 'validation_error');
  assert.ok(field in res.body.error.details.fields, JSON.stringify(res.body.error.details));
}

describe('GET /tracks?overdue=', () => {
  /** Plans overdue and not, as of NOW; the worker has recorded nothing overdue. */
  async function plans(api: Client) {
    const ada = await newCustomer(api, { name: 'Ada' });
    return at(EARLIER, async () => {
      const plan = (fields: Record<string, unknown>) => newTrack(api, { customerId: ada.id, ...fields });
      // Overdue: an obligation due 1 March, unpaid.
      const obligationLate = await plan({ amount: 10_000, title: 'obligation late' });
      await newSchedule(api, oneTime(obligationLate.id, 10_000, '2028-03-01'));
      // Overdue: its dueDate (14 March) has passed with a balance left.
      const dueDatePassed = await plan({ amount: 5_000, dueDate: '2028-03-14', title: 'due date passed' });
      // Overdue: an obligation due 10 March paid in part.
      const partLate = await plan({ amount: 8_000, title: 'part paid, late' });
      await newSchedule(api, oneTime(partLate.id, 8_000, '2028-03-10'));
      await newPayment(api, partLate.id, { amount: 3_000 });
      // Not overdue: due today; obligations not due yet; a late obligation paid in full; paid off; archived.
      const dueToday = await plan({ amount: 5_000, dueDate: '2028-03-15', title: 'due today' });
      const notYet = await plan({ amount: 6_000, title: 'not yet due' });
      await newSchedule(api, oneTime(notYet.id, 6_000, '2028-04-01'));
      const paidLate = await plan({ amount: 9_000, title: 'paid obligation' });
      await newSchedule(api, oneTime(paidLate.id, 4_000, '2028-03-01'));
      await newPayment(api, paidLate.id, { amount: 4_000 });
      const paidOff = await plan({ amount: 2_000, dueDate: '2028-02-01', title: 'paid off' });
      await newPayment(api, paidOff.id, { amount: 2_000 });
      const archived = await plan({ amount: 3_000, dueDate: '2028-02-01', title: 'archived' });
      assert.equal((await api.delete(`/tracks/${archived.id}`)).status, 200);
      return {
        ada,
        overdue: [partLate.id, dueDatePassed.id, obligationLate.id],
        others: [archived.id, paidOff.id, paidLate.id, notYet.id, dueToday.id],
      };
    });
  }

  test('true: plans with money overdue as the overdue report counts them; false: the others; newest first, paginated', async () => {
    const { api } = await lagos();
    const p = await plans(api);
    assert.deepEqual(await listIds(api, '/tracks?overdue=true'), p.overdue);
    assert.deepEqual(await listIds(api, '/tracks?overdue=true', 1), p.overdue);
    assert.deepEqual(await listIds(api, '/tracks?overdue=false'), p.others);
    assert.deepEqual(await listIds(api, '/tracks?overdue=false', 2), p.others);
    assert.equal((await listIds(api, '/tracks')).length, 8);
    // The very plans of the overdue report's accounts.
    const report = await data(api, '/reports/overdue?limit=100');
    assert.deepEqual(
      report.accounts.items.map((a: { trackId: string }) => a.trackId).sort(),
      [...p.overdue].sort(),
    );
  });

  test('combines with customerId and status; the worker recording overdue changes nothing; bad values are refused', async () => {
    const { api } = await lagos();
    const p = await plans(api);
    const bola = await newCustomer(api, { name: 'Bola' });
    const bolaLate = await at(EARLIER, () =>
      newTrack(api, { customerId: bola.id, amount: 1_000, dueDate: '2028-03-01' }),
    );
    assert.deepEqual(await listIds(api, `/tracks?overdue=true&customerId=${p.ada.id}`), p.overdue);
    assert.deepEqual(await listIds(api, `/tracks?overdue=true&customerId=${bola.id}`), [bolaLate.id]);
    assert.deepEqual(await listIds(api, `/tracks?overdue=true&status=completed`), []);
    assert.deepEqual(await listIds(api, `/tracks?overdue=false&status=archived`), [p.others[0]]);
    assert.equal((await api.post('/account/test-clock/advance', { hours: 1 })).status, 200);
    assert.deepEqual(await listIds(api, `/tracks?overdue=true&customerId=${p.ada.id}`), p.overdue);
    await invalid(api, '/tracks?overdue=maybe', 'overdue');
    await invalid(api, '/tracks?overdue=', 'overdue');
  });

  test("another workspace's and mode's plans are not listed", async () => {
    const { api, live } = await lagos();
    await plans(api);
    const stranger = await lagos();
    assert.deepEqual(await listIds(stranger.api, '/tracks?overdue=true'), []);
    assert.deepEqual(await listIds(live, '/tracks?overdue=true'), []);
  });
});

describe('GET /payments?status=', () => {
  test('recorded, reversed and split filter by status; another value is a validation_error naming status', async () => {
    const { api } = await lagos();
    const plan = await newTrack(api, { amount: 10_000 });
    const kept = await newPayment(api, plan.id, { amount: 1_000 });
    const reversed = await newPayment(api, plan.id, { amount: 2_000 });
    assert.equal((await api.post(`/payments/${reversed.id}/reverse`, {})).status, 200);
    const kept2 = await newPayment(api, plan.id, { amount: 3_000 });
    assert.deepEqual(await listIds(api, '/payments?status=recorded'), [kept2.id, kept.id]);
    assert.deepEqual(await listIds(api, '/payments?status=recorded', 1), [kept2.id, kept.id]);
    assert.deepEqual(await listIds(api, '/payments?status=reversed'), [reversed.id]);
    assert.deepEqual(await listIds(api, '/payments?status=split'), []);
    assert.deepEqual(await listIds(api, `/payments?status=reversed&trackId=${plan.id}`), [reversed.id]);
    await invalid(api, '/payments?status=refunded', 'status');
    await invalid(api, '/payments?status=', 'status');
    const stranger = await lagos();
    assert.deepEqual(await listIds(stranger.api, '/payments?status=recorded'), []);
  });
});

describe('GET /reports/overdue: contacts and schedule', () => {
  test("accounts carry the customer's phone and email (null when absent) and the schedule of the oldest overdue obligation", async () => {
    const { api } = await lagos();
    const ada = await newCustomer(api, { name: 'Ada', phone: '+2348031230001', email: 'ada@example.com' });
    const bola = await newCustomer(api, { name: 'Bola', phone: '+2348031230002' });
    const made = await at(EARLIER, async () => {
      // Ada's plan has two schedules: the one made second falls due first.
      const plan = await newTrack(api, { customerId: ada.id, amount: 100_000, title: 'Two schedules' });
      const later = await newSchedule(api, oneTime(plan.id, 30_000, '2028-03-01'));
      const sooner = await newSchedule(api, oneTime(plan.id, 20_000, '2028-02-01'));
      // Bola's plan owes only because its dueDate has passed.
      const dueOnly = await newTrack(api, {
        customerId: bola.id,
        amount: 4_000,
        dueDate: '2028-03-01',
        title: 'Due date only',
      });
      const planless = await newSchedule(api, oneTime(null, 7_000, '2028-03-05'));
      return { plan, later, sooner, dueOnly, planless };
    });
    const accounts = async (query = '') => {
      const report = await data(api, `/reports/overdue?limit=100${query}`);
      return Object.fromEntries(
        report.accounts.items.map((a: Record<string, unknown>) => [String(a.trackId ?? a.scheduleId), a]),
      );
    };
    const now = await accounts();
    assert.deepEqual(now[made.plan.id], {
      customerId: ada.id,
      customerName: 'Ada',
      phone: '+2348031230001',
      email: 'ada@example.com',
      trackId: made.plan.id,
      planTitle: 'Two schedules',
      scheduleId: made.sooner.id,
      currency: 'NGN',
      overdueAmount: 50_000,
      oldestDueDate: '2028-02-01',
      daysOverdue: 43,
      promised: 0,
      disputed: 0,
    });
    assert.deepEqual(
      [now[made.dueOnly.id]?.phone, now[made.dueOnly.id]?.email, now[made.dueOnly.id]?.scheduleId],
      ['+2348031230002', null, null],
    );
    assert.deepEqual(
      [
        now[made.planless.id]?.trackId,
        now[made.planless.id]?.scheduleId,
        now[made.planless.id]?.customerId,
        now[made.planless.id]?.phone,
        now[made.planless.id]?.email,
      ],
      [null, made.planless.id, null, null, null],
    );
    // Paying the oldest obligation leaves the other schedule's as the oldest overdue.
    await newPayment(api, made.plan.id, { amount: 20_000 });
    assert.equal((await accounts())[made.plan.id]?.scheduleId, made.later.id);
    // Recorded overdue by the worker, and as of an earlier time: the same schedules.
    assert.equal((await api.post('/account/test-clock/advance', { hours: 1 })).status, 200);
    assert.equal((await accounts())[made.plan.id]?.scheduleId, made.later.id);
    const before = await accounts('&to=2028-03-10T12:00:00Z');
    assert.equal(before[made.plan.id]?.scheduleId, made.sooner.id);
    assert.equal(before[made.plan.id]?.phone, '+2348031230001');
  });
});

describe('customer balances', () => {
  test('every customer answer carries balances per currency: outstanding, overdue (as the overdue report counts it) and credit', async () => {
    const { api } = await lagos();
    const created = await api.post('/customers', { name: 'Ada', phone: '+2348031239999' });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.data.balances, []);
    const ada = created.body.data;
    const naira = await at(EARLIER, async () => {
      const naira = await newTrack(api, { customerId: ada.id, amount: 100_000 });
      await newSchedule(api, oneTime(naira.id, 30_000, '2028-03-01'));
      await newSchedule(api, oneTime(naira.id, 20_000, '2028-04-01'));
      await newTrack(api, { customerId: ada.id, amount: 5_000, currency: 'USD', dueDate: '2028-03-14' });
      const gone = await newTrack(api, { customerId: ada.id, amount: 9_000, dueDate: '2028-02-01' });
      assert.equal((await api.delete(`/tracks/${gone.id}`)).status, 200);
      return naira;
    });
    const expected = [
      { currency: 'NGN', outstanding: 100_000, overdue: 30_000, credit: 0 },
      { currency: 'USD', outstanding: 5_000, overdue: 5_000, credit: 0 },
    ];
    assert.deepEqual((await data(api, `/customers/${ada.id}`)).balances, expected);
    const listed = (await data(api, '/customers?limit=100')).items.find(
      (c: { id: string }) => c.id === ada.id,
    );
    assert.deepEqual(listed.balances, expected);
    const searched = (await data(api, '/customers?q=Ada')).items;
    assert.deepEqual(searched[0]?.balances, expected);
    const updated = await api.patch(`/customers/${ada.id}`, { notes: 'Pays on Fridays' });
    assert.equal(updated.status, 200);
    assert.deepEqual(updated.body.data.balances, expected);
    // The overdue figures are the overdue report's.
    const report = await data(api, '/reports/overdue?limit=100');
    for (const b of expected) {
      assert.equal(
        report.currencies.find((c: { currency: string }) => c.currency === b.currency)?.total,
        b.overdue,
      );
    }
    // A payment lowers what is outstanding and overdue; the worker recording overdue changes nothing.
    await newPayment(api, naira.id, { amount: 10_000 });
    assert.equal((await api.post('/account/test-clock/advance', { hours: 1 })).status, 200);
    assert.deepEqual((await data(api, `/customers/${ada.id}`)).balances[0], {
      currency: 'NGN',
      outstanding: 90_000,
      overdue: 20_000,
      credit: 0,
    });
  });
});
