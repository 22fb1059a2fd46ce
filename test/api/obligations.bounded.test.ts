import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runSweepsNow } from '../../src/jobs/sweeps.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newSchedule, obligationsOf } from '../helpers/collections.js';
import { newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

/** Every test workspace starts on this time (the app's frozen clock); tests move their own test clock. */
const NOW = '2028-01-20T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

interface ObligationOut {
  id: string;
  schedule_id: string;
  due_date: string;
  amount: number;
  amount_paid: number;
  status: string;
}

const OPEN = ['pending', 'partially_paid', 'overdue'];

/** Every obligation of every schedule of a plan, in due date order. */
async function obligationsOfPlan(api: Client, planId: string): Promise<ObligationOut[]> {
  const res = await api.get(`/collection-schedules?target_id=${planId}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const all: ObligationOut[] = [];
  for (const schedule of res.body.data.items)
    all.push(...(await obligationsOf<ObligationOut>(api, schedule.id)));
  return all.sort((a, b) => (a.due_date < b.due_date ? -1 : a.due_date > b.due_date ? 1 : 0));
}

const asked = (items: ObligationOut[]) =>
  items.filter((o) => OPEN.includes(o.status)).reduce((sum, o) => sum + o.amount - o.amount_paid, 0);

async function balanceOf(api: Client, planId: string): Promise<number> {
  const res = await api.get(`/tracks/${planId}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.balance;
}

/** The rule: what the plan's open obligations ask is at most its balance, and no obligation asks 0. */
async function assertBounded(api: Client, planId: string): Promise<{ asked: number; balance: number }> {
  const items = await obligationsOfPlan(api, planId);
  const balance = await balanceOf(api, planId);
  const total = asked(items);
  assert.ok(total <= balance, `open obligations ask ${total}, the balance is ${balance}`);
  for (const o of items) assert.ok(o.amount > 0, `obligation ${o.id} is for ${o.amount}`);
  return { asked: total, balance };
}

const summary = (items: ObligationOut[]) => items.map((o) => [o.due_date, o.amount, o.amount_paid, o.status]);
const act = (api: Client, id: string, body: Record<string, unknown>) =>
  api.patch(`/collection-schedules/${id}`, body);
const plan = (planId: string) => ({ target_type: 'payment_plan', target_id: planId });

describe('generation stops at the balance', () => {
  test('a fixed_amount above the balance makes one obligation of the balance (one_time, flexible)', async () => {
    const { api } = await newWorkspace(t);
    const oneTime = await newTrack(api, { amount: 10_000 });
    const made = await newSchedule(api, {
      ...plan(oneTime.id),
      frequency: 'one_time',
      fixed_amount: 1_000_000_000_000,
      start_date: '2028-02-01T09:00:00Z',
    });
    assert.deepEqual(summary(await obligationsOf<ObligationOut>(api, made.id)), [
      ['2028-02-01', 10_000, 0, 'pending'],
    ]);

    const flexible = await newTrack(api, { amount: 25_000 });
    const open = await newSchedule(api, {
      ...plan(flexible.id),
      frequency: 'flexible',
      fixed_amount: 90_000,
      start_date: '2028-02-01T09:00:00Z',
      end_date: '2028-03-01T09:00:00Z',
    });
    assert.deepEqual(summary(await obligationsOf<ObligationOut>(api, open.id)), [
      ['2028-03-01', 25_000, 0, 'pending'],
    ]);
  });

  test('an open-ended schedule stops at the balance; top-ups and generate_obligations add nothing past it', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const phone = await newTrack(api, { amount: 10_000 });
    const weekly = await newSchedule(api, {
      ...plan(phone.id),
      frequency: 'weekly',
      fixed_amount: 3_000,
      start_date: NOW,
    });
    assert.deepEqual(summary(await obligationsOf<ObligationOut>(api, weekly.id)), [
      ['2028-01-20', 3_000, 0, 'pending'],
      ['2028-01-27', 3_000, 0, 'pending'],
      ['2028-02-03', 3_000, 0, 'pending'],
      ['2028-02-10', 1_000, 0, 'pending'],
    ]);
    const generated = await act(api, weekly.id, { action: 'generate_obligations' });
    assert.equal(generated.status, 200, JSON.stringify(generated.body));
    assert.deepEqual(generated.body.data.changes.created, []);

    const moved = await api.post('/account/test-clock/advance', { days: 120 });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    await runSweepsNow(t.ctx, { mode: 'test', workspaceId, now: new Date('2028-09-01T00:00:00Z') });
    const items = await obligationsOf<ObligationOut>(api, weekly.id);
    assert.equal(items.length, 4);
    assert.deepEqual(await assertBounded(api, phone.id), { asked: 10_000, balance: 10_000 });

    await newPayment(api, phone.id, { amount: 4_000 });
    await api.post('/account/test-clock/advance', { days: 30 });
    assert.equal((await obligationsOf<ObligationOut>(api, weekly.id)).length, 4);
    assert.deepEqual(await assertBounded(api, phone.id), { asked: 6_000, balance: 6_000 });
  });

  test('a second schedule where the first covers part asks only what is left uncovered', async () => {
    const { api } = await newWorkspace(t);
    const fridge = await newTrack(api, { amount: 10_000 });
    await newSchedule(api, {
      ...plan(fridge.id),
      frequency: 'one_time',
      fixed_amount: 6_000,
      start_date: '2028-02-01T09:00:00Z',
    });
    const monthly = await newSchedule(api, {
      ...plan(fridge.id),
      frequency: 'monthly',
      fixed_amount: 3_000,
      start_date: '2028-03-01T09:00:00Z',
    });
    assert.deepEqual(summary(await obligationsOf<ObligationOut>(api, monthly.id)), [
      ['2028-03-01', 3_000, 0, 'pending'],
      ['2028-04-01', 1_000, 0, 'pending'],
    ]);
    assert.deepEqual(await assertBounded(api, fridge.id), { asked: 10_000, balance: 10_000 });
  });

  test('installment_sequence spreads only what other schedules leave uncovered', async () => {
    const { api } = await newWorkspace(t);
    const laptop = await newTrack(api, { amount: 100_000, installments: 4 });
    await newSchedule(api, {
      ...plan(laptop.id),
      frequency: 'one_time',
      fixed_amount: 30_000,
      start_date: '2028-02-01T09:00:00Z',
    });
    const sequence = await newSchedule(api, {
      ...plan(laptop.id),
      frequency: 'installment_sequence',
      fixed_amount: 25_000,
      start_date: '2028-03-01T09:00:00Z',
    });
    assert.deepEqual(
      (await obligationsOf<ObligationOut>(api, sequence.id)).map((o) => o.amount),
      [25_000, 25_000, 20_000],
    );
    assert.deepEqual(await assertBounded(api, laptop.id), { asked: 100_000, balance: 100_000 });
  });
});

describe('a schedule on a plan its obligations already cover', () => {
  test('is refused with invalid_state saying how to replace the other, and nothing changes', async () => {
    const { api } = await newWorkspace(t);
    const fridge = await newTrack(api, { amount: 10_000 });
    const first = await newSchedule(api, {
      ...plan(fridge.id),
      frequency: 'monthly',
      fixed_amount: 2_500,
      start_date: '2028-02-01T09:00:00Z',
      end_date: '2028-05-01T09:00:00Z',
    });
    const eventsBefore = (await api.get('/events?limit=100')).body.data.items.length;
    for (const body of [
      { frequency: 'one_time', fixed_amount: 1_000 },
      { frequency: 'weekly', fixed_amount: 100_000 },
      { frequency: 'installment_sequence', fixed_amount: 1_000 },
    ]) {
      const res = await api.post('/collection-schedules', {
        ...plan(fridge.id),
        start_date: '2028-02-01T09:00:00Z',
        ...body,
      });
      assert.equal(res.status, 409, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'invalid_state');
      assert.match(res.body.error.message, /already cover/);
      assert.match(res.body.error.message, /replaces_schedule_id/);
      assert.match(res.body.error.message, new RegExp(first.id));
      assert.equal(res.body.error.details.status, 'active');
      assert.equal(res.body.error.details.action, 'create_schedule');
      assert.equal(res.body.error.details.balance, 10_000);
      assert.equal(res.body.error.details.covered, 10_000);
      assert.deepEqual(res.body.error.details.schedules, [first.id]);
    }
    assert.equal((await api.get(`/collection-schedules?target_id=${fridge.id}`)).body.data.items.length, 1);
    assert.equal((await api.get('/events?limit=100')).body.data.items.length, eventsBefore);
    assert.deepEqual(await assertBounded(api, fridge.id), { asked: 10_000, balance: 10_000 });
  });

  test('a draft on it is made, but activating it is refused until the other is cancelled', async () => {
    const { api } = await newWorkspace(t);
    const fridge = await newTrack(api, { amount: 10_000 });
    const first = await newSchedule(api, {
      ...plan(fridge.id),
      frequency: 'one_time',
      fixed_amount: 10_000,
      start_date: '2028-02-01T09:00:00Z',
    });
    const draft = await newSchedule(api, {
      ...plan(fridge.id),
      frequency: 'monthly',
      fixed_amount: 4_000,
      start_date: '2028-02-01T09:00:00Z',
      status: 'draft',
    });
    const refused = await act(api, draft.id, { action: 'activate' });
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'invalid_state');
    assert.match(refused.body.error.message, /already cover/);
    assert.match(refused.body.error.message, new RegExp(first.id));
    assert.equal((await api.get(`/collection-schedules/${draft.id}`)).body.data.status, 'draft');
    assert.deepEqual(await obligationsOf<ObligationOut>(api, draft.id), []);

    assert.equal((await act(api, first.id, { action: 'cancel' })).status, 200);
    const activated = await act(api, draft.id, { action: 'activate' });
    assert.equal(activated.status, 200, JSON.stringify(activated.body));
    assert.deepEqual(
      (await obligationsOf<ObligationOut>(api, draft.id)).map((o) => o.amount),
      [4_000, 4_000, 2_000],
    );
    assert.deepEqual(await assertBounded(api, fridge.id), { asked: 10_000, balance: 10_000 });
  });
});

describe('replaces_schedule_id', () => {
  test('cancels the schedule it names with its open obligations, in the same request, before the new one generates', async () => {
    const { api } = await newWorkspace(t);
    const fridge = await newTrack(api, { amount: 10_000 });
    const old = await newSchedule(api, {
      ...plan(fridge.id),
      frequency: 'monthly',
      fixed_amount: 2_500,
      start_date: '2028-01-20T09:00:00Z',
      end_date: '2028-04-20T09:00:00Z',
    });
    await newPayment(api, fridge.id, { amount: 3_000 });
    const replacement = await newSchedule(api, {
      ...plan(fridge.id),
      frequency: 'weekly',
      fixed_amount: 2_000,
      start_date: '2028-02-01T09:00:00Z',
      replaces_schedule_id: old.id,
    });
    const cancelled = (await api.get(`/collection-schedules/${old.id}`)).body.data;
    assert.equal(cancelled.status, 'cancelled');
    assert.deepEqual(summary(await obligationsOf<ObligationOut>(api, old.id)), [
      ['2028-01-20', 2_500, 2_500, 'paid'],
      ['2028-02-20', 2_500, 500, 'cancelled'],
      ['2028-03-20', 2_500, 0, 'cancelled'],
      ['2028-04-20', 2_500, 0, 'cancelled'],
    ]);
    assert.deepEqual(
      (await obligationsOf<ObligationOut>(api, replacement.id)).map((o) => o.amount),
      [2_000, 2_000, 2_000, 1_000],
    );
    assert.deepEqual(await assertBounded(api, fridge.id), { asked: 7_000, balance: 7_000 });
    const events = (await api.get('/events?type=schedule.cancelled')).body.data.items;
    assert.equal(events.length, 1);
    assert.equal(events[0].data.object.id, old.id);
    assert.deepEqual(events[0].data.previous_attributes, { status: 'active' });
  });

  test('is checked: unknown 404, another plan 422, a cancelled one 409, with a draft 422; nothing changes', async () => {
    const { api } = await newWorkspace(t);
    const fridge = await newTrack(api, { amount: 10_000 });
    const other = await newTrack(api, { amount: 10_000 });
    const covering = await newSchedule(api, {
      ...plan(fridge.id),
      frequency: 'one_time',
      fixed_amount: 10_000,
      start_date: '2028-02-01T09:00:00Z',
    });
    const elsewhere = await newSchedule(api, {
      ...plan(other.id),
      frequency: 'one_time',
      fixed_amount: 5_000,
      start_date: '2028-02-01T09:00:00Z',
    });
    const gone = await newSchedule(api, {
      ...plan(other.id),
      frequency: 'one_time',
      fixed_amount: 5_000,
      start_date: '2028-03-01T09:00:00Z',
    });
    assert.equal((await act(api, gone.id, { action: 'cancel' })).status, 200);
    const body = {
      ...plan(fridge.id),
      frequency: 'one_time',
      fixed_amount: 1_000,
      start_date: '2028-02-01T09:00:00Z',
    };

    const unknown = await api.post('/collection-schedules', {
      ...body,
      replaces_schedule_id: 'sch_01JD7ZA1B2C3D4E5F6G7H8J9K0',
    });
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
    assert.equal(unknown.body.error.details.field, 'replaces_schedule_id');

    const foreign = await api.post('/collection-schedules', { ...body, replaces_schedule_id: elsewhere.id });
    assert.equal(foreign.status, 422, JSON.stringify(foreign.body));
    assert.ok(foreign.body.error.details.fields.replaces_schedule_id);

    const other2 = { ...body, ...plan(other.id) };
    const done = await api.post('/collection-schedules', { ...other2, replaces_schedule_id: gone.id });
    assert.equal(done.status, 409, JSON.stringify(done.body));
    assert.equal(done.body.error.code, 'invalid_state');
    assert.deepEqual(done.body.error.details, {
      status: 'cancelled',
      action: 'replace',
      field: 'replaces_schedule_id',
    });

    const draft = await api.post('/collection-schedules', {
      ...body,
      status: 'draft',
      replaces_schedule_id: covering.id,
    });
    assert.equal(draft.status, 422, JSON.stringify(draft.body));
    assert.ok(draft.body.error.details.fields.replaces_schedule_id);

    assert.equal((await api.get(`/collection-schedules/${covering.id}`)).body.data.status, 'active');
    assert.equal((await api.get(`/collection-schedules/${elsewhere.id}`)).body.data.status, 'active');
    assert.equal((await api.get(`/collection-schedules?target_id=${fridge.id}`)).body.data.items.length, 1);
    assert.equal((await api.get(`/collection-schedules?target_id=${other.id}`)).body.data.items.length, 2);
  });
});

describe("lowering a plan's amount trims its open obligations, latest due date first", () => {
  test('lowered, then cancelled when they would ask nothing; the rule holds after each change', async () => {
    const { api } = await newWorkspace(t);
    const fridge = await newTrack(api, { amount: 10_000 });
    const monthly = await newSchedule(api, {
      ...plan(fridge.id),
      frequency: 'monthly',
      fixed_amount: 2_500,
      start_date: '2028-02-01T09:00:00Z',
      end_date: '2028-05-01T09:00:00Z',
    });
    await newPayment(api, fridge.id, { amount: 1_000 });
    const lower = async (amount: number) => {
      const res = await api.patch(`/tracks/${fridge.id}`, { amount });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return summary(await obligationsOf<ObligationOut>(api, monthly.id));
    };

    assert.deepEqual(await lower(6_000), [
      ['2028-02-01', 2_500, 1_000, 'partially_paid'],
      ['2028-03-01', 2_500, 0, 'pending'],
      ['2028-04-01', 1_000, 0, 'pending'],
      ['2028-05-01', 2_500, 0, 'cancelled'],
    ]);
    assert.deepEqual(await assertBounded(api, fridge.id), { asked: 5_000, balance: 5_000 });

    assert.deepEqual(await lower(3_500), [
      ['2028-02-01', 2_500, 1_000, 'partially_paid'],
      ['2028-03-01', 1_000, 0, 'pending'],
      ['2028-04-01', 1_000, 0, 'cancelled'],
      ['2028-05-01', 2_500, 0, 'cancelled'],
    ]);
    assert.deepEqual(await assertBounded(api, fridge.id), { asked: 2_500, balance: 2_500 });

    // Raised again: the obligations stay below the balance, which is allowed.
    assert.equal((await api.patch(`/tracks/${fridge.id}`, { amount: 9_000 })).status, 200);
    assert.deepEqual(await assertBounded(api, fridge.id), { asked: 2_500, balance: 8_000 });

    assert.deepEqual(await lower(2_000), [
      ['2028-02-01', 2_000, 1_000, 'partially_paid'],
      ['2028-03-01', 1_000, 0, 'cancelled'],
      ['2028-04-01', 1_000, 0, 'cancelled'],
      ['2028-05-01', 2_500, 0, 'cancelled'],
    ]);
    assert.deepEqual(await assertBounded(api, fridge.id), { asked: 1_000, balance: 1_000 });

    const paidOff = await api.patch(`/tracks/${fridge.id}`, { amount: 1_000 });
    assert.equal(paidOff.body.data.status, 'completed');
    assert.equal((await api.get(`/collection-schedules/${monthly.id}`)).body.data.status, 'completed');
    assert.deepEqual(await assertBounded(api, fridge.id), { asked: 0, balance: 0 });
  });

  test('a partly paid obligation trimmed to what it was paid is paid, with its event', async () => {
    const { api } = await newWorkspace(t);
    const fridge = await newTrack(api, { amount: 10_000 });
    const march = await newSchedule(api, {
      ...plan(fridge.id),
      frequency: 'one_time',
      fixed_amount: 3_000,
      start_date: '2028-03-01T09:00:00Z',
    });
    await newPayment(api, fridge.id, { amount: 1_000 });
    const february = await newSchedule(api, {
      ...plan(fridge.id),
      frequency: 'one_time',
      fixed_amount: 5_000,
      start_date: '2028-02-01T09:00:00Z',
    });
    const res = await api.patch(`/tracks/${fridge.id}`, { amount: 6_000 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(summary(await obligationsOf<ObligationOut>(api, march.id)), [
      ['2028-03-01', 1_000, 1_000, 'paid'],
    ]);
    assert.deepEqual(summary(await obligationsOf<ObligationOut>(api, february.id)), [
      ['2028-02-01', 5_000, 0, 'pending'],
    ]);
    assert.deepEqual(await assertBounded(api, fridge.id), { asked: 5_000, balance: 5_000 });
    assert.equal((await api.get(`/collection-schedules/${march.id}`)).body.data.status, 'completed');
    const paid = (await api.get('/events?type=obligation.paid')).body.data.items;
    assert.equal(paid.length, 1);
  });
});

describe('reports of a plan of 100.00', () => {
  test('overlapping schedules and a fixed_amount of 10^12: overdue and expected never pass 100.00', async () => {
    const { api } = await newWorkspace(t, { currency: 'GBP' });
    const loan = await newTrack(api, { amount: 10_000 });
    await newSchedule(api, {
      ...plan(loan.id),
      frequency: 'daily',
      fixed_amount: 1_000_000_000_000,
      start_date: NOW,
    });
    for (const frequency of ['one_time', 'weekly']) {
      const res = await api.post('/collection-schedules', {
        ...plan(loan.id),
        frequency,
        fixed_amount: 10_000,
        start_date: NOW,
      });
      assert.equal(res.status, 409, JSON.stringify(res.body));
    }
    const summaryNow = (await api.get('/reports/summary')).body.data.currencies[0];
    assert.equal(summaryNow.expectedNext30Days, 10_000);

    await api.post('/account/test-clock/advance', { days: 40 });
    const overdue = (await api.get('/reports/overdue')).body.data;
    assert.deepEqual(
      overdue.currencies.map((c: { currency: string; total: number }) => [c.currency, c.total]),
      [['GBP', 10_000]],
    );
    assert.equal(overdue.accounts.items[0].overdueAmount, 10_000);
    const later = (await api.get('/reports/summary')).body.data.currencies[0];
    assert.equal(later.overdue, 10_000);
    assert.equal(later.expectedNext30Days, 0);
  });
});

describe('at once', () => {
  test('schedule creations, payments, generation and an amount change on one plan keep the rule', async () => {
    const { api } = await newWorkspace(t);
    for (let round = 0; round < 3; round++) {
      const fridge = await newTrack(api, { amount: 100_000 });
      const bodies = [
        { frequency: 'one_time', fixed_amount: 30_000, start_date: '2028-02-01T09:00:00Z' },
        { frequency: 'weekly', fixed_amount: 7_000, start_date: NOW },
        { frequency: 'monthly', fixed_amount: 10_000, start_date: NOW, end_date: '2028-06-01T00:00:00Z' },
        { frequency: 'flexible', fixed_amount: 50_000, start_date: NOW },
        { frequency: 'daily', fixed_amount: 4_000, start_date: NOW },
        { frequency: 'installment_sequence', fixed_amount: 15_000, start_date: NOW },
        { frequency: 'one_time', fixed_amount: 100_000, start_date: '2028-03-01T09:00:00Z' },
        { frequency: 'custom', interval: 3, fixed_amount: 9_000, start_date: NOW },
      ];
      const first = await newSchedule(api, { ...plan(fridge.id), ...bodies[0] });
      const results = await Promise.all([
        ...bodies.map((body) => api.post('/collection-schedules', { ...plan(fridge.id), ...body })),
        ...Array.from({ length: 6 }, () =>
          api.post('/payments', { trackId: fridge.id, amount: 3_000, method: 'cash' }),
        ),
        act(api, first.id, { action: 'generate_obligations' }),
        api.patch(`/tracks/${fridge.id}`, { amount: 80_000 }),
      ]);
      for (const res of results) {
        assert.ok([200, 201, 409].includes(res.status), JSON.stringify(res.body));
      }
      assert.ok(
        results.some((res) => res.status === 409),
        'some schedule found the plan covered',
      );
      const { asked: total, balance } = await assertBounded(api, fridge.id);
      assert.ok(total > 0 && balance > 0);
    }
  });
});
