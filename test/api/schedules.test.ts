import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newSchedule, obligationsOf } from '../helpers/collections.js';
import { newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

/** Every test workspace starts on this time (the app's frozen clock); tests move their own test clock. */
const NOW = '2028-01-20T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

interface ObligationOut {
  id: string;
  due_date: string;
  amount: number;
  amount_paid: number;
  status: string;
  track_id: string | null;
  paid_at: string | null;
  allocations: { payment_id: string; amount: number; reversed_at: string | null }[];
}

const act = (api: Client, id: string, body: Record<string, unknown>) =>
  api.patch(`/collection-schedules/${id}`, body);

const dates = (items: { due_date: string }[]) => items.map((o) => o.due_date);
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('frequencies', () => {
  test('one_time: one obligation on the start date, for fixed_amount', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 50_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'one_time',
      fixed_amount: 20_000,
      start_date: '2028-02-10T09:00:00Z',
    });
    assert.equal(schedule.status, 'active');
    assert.equal(schedule.collection_method, 'manual');
    assert.equal(schedule.currency, 'NGN');
    assert.equal(schedule.interval, null);
    assert.equal(schedule.next_due_date, '2028-02-10');
    assert.equal(schedule.target_id, plan.id);
    const items = await obligationsOf<ObligationOut>(api, schedule.id);
    assert.deepEqual(
      items.map((o) => [o.due_date, o.amount, o.amount_paid, o.status, o.track_id]),
      [['2028-02-10', 20_000, 0, 'pending', plan.id]],
    );
  });

  test('daily every 2 days up to and including the end date', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api);
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'daily',
      interval: 2,
      fixed_amount: 1_000,
      start_date: '2028-02-01T00:00:00Z',
      end_date: '2028-02-09T00:00:00Z',
    });
    assert.deepEqual(dates(await obligationsOf<ObligationOut>(api, schedule.id)), [
      '2028-02-01',
      '2028-02-03',
      '2028-02-05',
      '2028-02-07',
      '2028-02-09',
    ]);
  });

  test('weekly, open-ended: 12 from the start date', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 1_000_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'weekly',
      fixed_amount: 1_000,
      start_date: NOW,
    });
    const items = await obligationsOf<ObligationOut>(api, schedule.id);
    assert.equal(items.length, 12);
    assert.equal(items[0]?.due_date, '2028-01-20');
    assert.equal(items[1]?.due_date, '2028-01-27');
    assert.equal(items[11]?.due_date, '2028-04-06');
  });

  test('monthly keeps the day of the start date, clamped to the month end, and comes back (leap year)', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 1_000_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 10_000,
      start_date: '2028-01-31T10:00:00Z',
    });
    const due = dates(await obligationsOf<ObligationOut>(api, schedule.id));
    assert.deepEqual(due.slice(0, 5), ['2028-01-31', '2028-02-29', '2028-03-31', '2028-04-30', '2028-05-31']);
    assert.equal(due.length, 12);
    assert.equal(due[11], '2028-12-31');
  });

  test('monthly every 2 months from the 31st, and 28 February in a common year', async () => {
    const { api } = await newWorkspace(t);
    const schedule = await newSchedule(api, {
      target_type: 'generic_collection',
      target_id: null,
      frequency: 'monthly',
      interval: 2,
      fixed_amount: 10_000,
      start_date: '2028-12-31T10:00:00Z',
      end_date: '2029-06-30T10:00:00Z',
    });
    assert.deepEqual(dates(await obligationsOf<ObligationOut>(api, schedule.id)), [
      '2028-12-31',
      '2029-02-28',
      '2029-04-30',
      '2029-06-30',
    ]);
  });

  test('custom: every `interval` days, which it requires', async () => {
    const { api } = await newWorkspace(t);
    const schedule = await newSchedule(api, {
      target_type: 'generic_collection',
      frequency: 'custom',
      interval: 10,
      fixed_amount: 500,
      start_date: '2028-02-25T10:00:00Z',
      end_date: '2028-03-20T10:00:00Z',
    });
    assert.deepEqual(dates(await obligationsOf<ObligationOut>(api, schedule.id)), [
      '2028-02-25',
      '2028-03-06',
      '2028-03-16',
    ]);
    const missing = await api.post('/collection-schedules', {
      target_type: 'generic_collection',
      frequency: 'custom',
      fixed_amount: 500,
      start_date: NOW,
    });
    assert.equal(missing.status, 422);
    assert.equal(missing.body.error.code, 'validation_error');
    assert.ok(missing.body.error.details.fields.interval);
  });

  test('flexible: one obligation due on the end date, paid in any parts', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 90_000 });
    const schedule = await newSchedule(api, {
      target_type: 'contribution_member',
      target_id: plan.id,
      frequency: 'flexible',
      fixed_amount: 60_000,
      start_date: NOW,
      end_date: '2028-06-30T12:00:00Z',
    });
    await newPayment(api, plan.id, { amount: 25_000 });
    await newPayment(api, plan.id, { amount: 15_000 });
    const [only, ...rest] = await obligationsOf<ObligationOut>(api, schedule.id);
    assert.equal(rest.length, 0);
    assert.equal(only?.due_date, '2028-06-30');
    assert.equal(only?.amount_paid, 40_000);
    assert.equal(only?.status, 'partially_paid');
    assert.equal(only?.allocations.length, 2);
  });

  test('installment_sequence: the plan balance in fixed parts, the last taking the remainder', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 100_000, installments: 4 });
    await newPayment(api, plan.id, { amount: 10_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'installment_sequence',
      fixed_amount: 25_000,
      start_date: '2028-01-31T08:00:00Z',
    });
    const items = await obligationsOf<ObligationOut>(api, schedule.id);
    assert.deepEqual(
      items.map((o) => [o.due_date, o.amount]),
      [
        ['2028-01-31', 25_000],
        ['2028-02-29', 25_000],
        ['2028-03-31', 25_000],
        ['2028-04-30', 15_000],
      ],
    );
    assert.equal(sum(items.map((o) => o.amount)), 90_000);

    const noPlan = await newTrack(api, { amount: 100_000 });
    const derived = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: noPlan.id,
      frequency: 'installment_sequence',
      fixed_amount: 30_000,
      start_date: NOW,
    });
    assert.deepEqual(
      (await obligationsOf<ObligationOut>(api, derived.id)).map((o) => o.amount),
      [30_000, 30_000, 30_000, 10_000],
    );

    const impossible = await api.post('/collection-schedules', {
      target_type: 'payment_plan',
      target_id: (await newTrack(api, { amount: 100_000, installments: 3 })).id,
      frequency: 'installment_sequence',
      fixed_amount: 50_000,
      start_date: NOW,
    });
    assert.equal(impossible.status, 422, JSON.stringify(impossible.body));
    assert.ok(impossible.body.error.details.fields.fixed_amount);
  });

  test('generic_collection without a plan: obligations with no plan', async () => {
    const { api } = await newWorkspace(t);
    const schedule = await newSchedule(api, {
      target_type: 'generic_collection',
      target_id: null,
      frequency: 'one_time',
      fixed_amount: 7_000,
      start_date: NOW,
      collection_method: 'reminder_only',
      currency: 'KES',
    });
    assert.equal(schedule.currency, 'KES');
    assert.equal(schedule.collection_method, 'reminder_only');
    const [only] = await obligationsOf<ObligationOut>(api, schedule.id);
    assert.equal(only?.track_id, null);
    assert.equal(only?.amount, 7_000);
  });

  test('every collection method is stored', async () => {
    const { api } = await newWorkspace(t);
    for (const method of [
      'manual',
      'reminder_only',
      'gatewayA_checkout',
      'gatewayB_virtual_account',
      'auto_debit',
      'mixed',
    ]) {
      const schedule = await newSchedule(api, {
        target_type: 'generic_collection',
        frequency: 'one_time',
        fixed_amount: 100,
        start_date: NOW,
        collection_method: method,
      });
      assert.equal(
        (await api.get(`/collection-schedules/${schedule.id}`)).body.data.collection_method,
        method,
      );
    }
  });
});

describe('refused schedules change nothing', () => {
  const cases: [string, Record<string, unknown>, string, number][] = [
    [
      'a plan target without target_id',
      { target_type: 'payment_plan', frequency: 'one_time' },
      'target_id',
      422,
    ],
    [
      'interval on one_time',
      { target_type: 'generic_collection', frequency: 'one_time', interval: 2 },
      'interval',
      422,
    ],
    ['an unknown frequency', { target_type: 'generic_collection', frequency: 'yearly' }, 'frequency', 422],
    [
      'an unknown method',
      { target_type: 'generic_collection', frequency: 'one_time', collection_method: 'cash' },
      'collection_method',
      422,
    ],
    [
      'an end before the start',
      { target_type: 'generic_collection', frequency: 'daily', end_date: '2028-01-01T00:00:00Z' },
      'end_date',
      422,
    ],
    [
      'a fixed_amount of 0',
      { target_type: 'generic_collection', frequency: 'one_time', fixed_amount: 0 },
      'fixed_amount',
      422,
    ],
    [
      'a float fixed_amount',
      { target_type: 'generic_collection', frequency: 'one_time', fixed_amount: 10.5 },
      'fixed_amount',
      422,
    ],
    [
      'an unknown field',
      { target_type: 'generic_collection', frequency: 'one_time', amount: 5 },
      'amount',
      422,
    ],
    [
      'a date without time',
      { target_type: 'generic_collection', frequency: 'one_time', start_date: '2028-01-20' },
      'start_date',
      422,
    ],
    [
      'an unknown plan',
      { target_type: 'payment_plan', target_id: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C', frequency: 'one_time' },
      'target_id',
      404,
    ],
    [
      'more than 1,000 obligations',
      { target_type: 'generic_collection', frequency: 'daily', end_date: '2031-01-01T00:00:00Z' },
      'end_date',
      422,
    ],
  ];
  for (const [name, body, field, status] of cases) {
    test(`${name}: ${status} naming ${field}`, async () => {
      const { api } = await newWorkspace(t);
      const res = await api.post('/collection-schedules', {
        fixed_amount: 1_000,
        start_date: NOW,
        ...body,
      });
      assert.equal(res.status, status, JSON.stringify(res.body));
      const details = res.body.error.details;
      assert.ok(
        details.fields?.[field] ?? (details.field === field ? field : undefined),
        JSON.stringify(res.body),
      );
      assert.equal((await api.get('/collection-schedules')).body.data.items.length, 0);
    });
  }

  test('an archived plan is invalid_state', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api);
    await api.delete(`/tracks/${plan.id}`);
    const res = await api.post('/collection-schedules', {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'one_time',
      fixed_amount: 1_000,
      start_date: NOW,
    });
    assert.equal(res.status, 409);
    assert.deepEqual(res.body.error.details, { status: 'archived', action: 'create_schedule' });
  });

  test('another workspace plan is not found', async () => {
    const a = await newWorkspace(t);
    const b = await newWorkspace(t);
    const plan = await newTrack(a.api);
    const res = await b.api.post('/collection-schedules', {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'one_time',
      fixed_amount: 1_000,
      start_date: NOW,
    });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.details.field, 'target_id');
  });
});

describe('actions', () => {
  const ACTIONS = ['activate', 'pause', 'resume', 'cancel', 'generate_obligations', 'sync_payment_plan'];
  /** What each action does from each state: the new status, or null for 409. */
  const MATRIX: Record<string, Record<string, string | null>> = {
    draft: {
      activate: 'active',
      pause: null,
      resume: null,
      cancel: 'cancelled',
      generate_obligations: null,
      sync_payment_plan: null,
    },
    active: {
      activate: null,
      pause: 'paused',
      resume: null,
      cancel: 'cancelled',
      generate_obligations: 'active',
      sync_payment_plan: 'active',
    },
    paused: {
      activate: null,
      pause: null,
      resume: 'active',
      cancel: 'cancelled',
      generate_obligations: 'paused',
      sync_payment_plan: 'paused',
    },
    cancelled: {
      activate: null,
      pause: null,
      resume: null,
      cancel: null,
      generate_obligations: null,
      sync_payment_plan: null,
    },
    // The plan still owes 70,000: sync adds an obligation for it and the schedule collects again.
    completed: {
      activate: null,
      pause: null,
      resume: null,
      cancel: null,
      generate_obligations: null,
      sync_payment_plan: 'active',
    },
  };

  /** A schedule on a plan brought to `status`. */
  async function scheduleIn(api: Client, status: string) {
    const plan = await newTrack(api, { amount: 100_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 10_000,
      start_date: NOW,
      end_date: '2028-03-20T12:00:00Z',
      ...(status === 'draft' ? { status: 'draft' } : {}),
    });
    if (status === 'paused') assert.equal((await act(api, schedule.id, { action: 'pause' })).status, 200);
    if (status === 'cancelled') assert.equal((await act(api, schedule.id, { action: 'cancel' })).status, 200);
    if (status === 'completed') await newPayment(api, plan.id, { amount: 30_000 });
    assert.equal((await api.get(`/collection-schedules/${schedule.id}`)).body.data.status, status);
    return { plan, schedule };
  }

  for (const [from, row] of Object.entries(MATRIX)) {
    for (const action of ACTIONS) {
      const to = row[action];
      test(`${action} from ${from}: ${to === null ? '409 invalid_state' : to}`, async () => {
        const { api } = await newWorkspace(t);
        const { schedule } = await scheduleIn(api, from);
        const res = await act(api, schedule.id, { action });
        if (to === null) {
          assert.equal(res.status, 409, JSON.stringify(res.body));
          assert.equal(res.body.error.code, 'invalid_state');
          assert.deepEqual(res.body.error.details, { status: from, action });
          assert.equal((await api.get(`/collection-schedules/${schedule.id}`)).body.data.status, from);
        } else {
          assert.equal(res.status, 200, JSON.stringify(res.body));
          assert.equal(res.body.data.status, to);
          assert.equal(res.body.data.id, schedule.id);
        }
      });
    }
  }

  test('a draft has no obligations until activate generates them', async () => {
    const { api } = await newWorkspace(t);
    const { schedule } = await scheduleIn(api, 'draft');
    assert.equal((await obligationsOf<ObligationOut>(api, schedule.id)).length, 0);
    assert.equal(schedule.next_due_date, null);
    await act(api, schedule.id, { action: 'activate' });
    assert.deepEqual(dates(await obligationsOf<ObligationOut>(api, schedule.id)), [
      '2028-01-20',
      '2028-02-20',
      '2028-03-20',
    ]);
  });

  test('cancel cancels the open obligations and keeps the paid ones', async () => {
    const { api } = await newWorkspace(t);
    const { plan, schedule } = await scheduleIn(api, 'active');
    await newPayment(api, plan.id, { amount: 10_000 });
    const res = await act(api, schedule.id, { action: 'cancel' });
    assert.equal(res.body.data.next_due_date, null);
    assert.deepEqual(
      (await obligationsOf<ObligationOut>(api, schedule.id)).map((o) => o.status),
      ['paid', 'cancelled', 'cancelled'],
    );
    // A payment no longer goes to a cancelled obligation.
    const payment = await newPayment(api, plan.id, { amount: 5_000 });
    assert.deepEqual(payment.allocations, []);
    assert.equal(payment.unallocatedAmount, 5_000);
  });

  test('a missing or unknown action is a validation_error naming action; dry_run only with the two', async () => {
    const { api } = await newWorkspace(t);
    const { schedule } = await scheduleIn(api, 'active');
    for (const body of [{}, { action: 'archive' }, { action: 'PAUSE' }]) {
      const res = await act(api, schedule.id, body);
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.ok(res.body.error.details.fields.action);
    }
    const res = await act(api, schedule.id, { action: 'pause', dry_run: true });
    assert.equal(res.status, 422);
    assert.ok(res.body.error.details.fields.dry_run);
    assert.equal((await api.get(`/collection-schedules/${schedule.id}`)).body.data.status, 'active');
    const missing = await act(api, 'sch_01JD7ZA1B2C3D4E5F6G7H8J9K0', { action: 'pause' });
    assert.equal(missing.status, 404);
  });

  test('events: schedule.created, schedule.updated with the old status, schedule.cancelled', async () => {
    const { api } = await newWorkspace(t);
    const { schedule } = await scheduleIn(api, 'active');
    await act(api, schedule.id, { action: 'pause' });
    await act(api, schedule.id, { action: 'cancel' });
    const events = (await api.get('/events?limit=100')).body.data.items.filter(
      (e: { type: string; data: { object: { id: string } } }) => e.data.object.id === schedule.id,
    );
    assert.deepEqual(
      events.map((e: { type: string }) => e.type),
      ['schedule.cancelled', 'schedule.updated', 'schedule.created'],
    );
    assert.deepEqual(events[1].data.previous_attributes, { status: 'active' });
    assert.equal(events[1].data.object.status, 'paused');
  });
});

describe('generation and the 12-ahead window', () => {
  test('open-ended schedules are topped up as the test clock moves; a paused one is not, resume skips the pause', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 10_000_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'weekly',
      fixed_amount: 1_000,
      start_date: NOW,
    });
    const moved = await api.post('/account/test-clock/advance', { days: 21 });
    assert.equal(moved.status, 200);
    assert.ok(moved.body.data.ran['schedules.top_up'] >= 3, JSON.stringify(moved.body.data.ran));
    let items = await obligationsOf<ObligationOut>(api, schedule.id);
    assert.equal(items.length, 15);
    assert.equal(items.filter((o) => o.due_date >= '2028-02-10').length, 12);
    assert.deepEqual(
      items.slice(0, 3).map((o) => o.status),
      ['overdue', 'overdue', 'overdue'],
    );

    await act(api, schedule.id, { action: 'pause' });
    await api.post('/account/test-clock/advance', { days: 70 });
    assert.equal((await obligationsOf<ObligationOut>(api, schedule.id)).length, 15);
    await act(api, schedule.id, { action: 'resume' });
    items = await obligationsOf<ObligationOut>(api, schedule.id);
    // 2028-04-20 is today: the weeks of the pause after the last obligation are skipped.
    const upcoming = items.filter((o) => o.due_date >= '2028-04-20');
    assert.equal(upcoming.length, 12);
    assert.equal(new Set(dates(items)).size, items.length);
  });

  test('generate_obligations: its dry run writes nothing, and ten at once make no duplicate', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 10_000_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'daily',
      fixed_amount: 1_000,
      start_date: NOW,
    });
    await act(api, schedule.id, { action: 'pause' });
    await api.post('/account/test-clock/advance', { days: 5 });
    const before = await obligationsOf<ObligationOut>(api, schedule.id);
    const ledgerBefore = (await api.get(`/tracks/${plan.id}/ledger?limit=100`)).body.data.items.length;

    const dry = await act(api, schedule.id, { action: 'generate_obligations', dry_run: true });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.data.changes.dry_run, true);
    assert.deepEqual(
      dry.body.data.changes.created.map((o: { id: null; due_date: string }) => [o.id, o.due_date]),
      ['2028-02-01', '2028-02-02', '2028-02-03', '2028-02-04', '2028-02-05'].map((d) => [null, d]),
    );
    assert.deepEqual(await obligationsOf<ObligationOut>(api, schedule.id), before);
    assert.equal((await api.get(`/tracks/${plan.id}/ledger?limit=100`)).body.data.items.length, ledgerBefore);

    const results = await Promise.all(
      Array.from({ length: 10 }, () => act(api, schedule.id, { action: 'generate_obligations' })),
    );
    assert.ok(results.every((r) => r.status === 200));
    assert.equal(sum(results.map((r) => r.body.data.changes.created.length)), 5);
    const after = await obligationsOf<ObligationOut>(api, schedule.id);
    assert.equal(after.length, 17);
    assert.equal(new Set(dates(after)).size, 17);
    assert.deepEqual(
      dates(after).slice(12),
      dry.body.data.changes.created.map((o: { due_date: string }) => o.due_date),
    );
  });
});

describe('time zones', () => {
  test('due dates are calendar dates in the workspace zone, and overdue starts at the next local midnight', async () => {
    const { api } = await newWorkspace(t, { timezone: 'America/New_York' });
    const plan = await newTrack(api, { amount: 100_000 });
    // 03:00 UTC on 1 March is still 29 February in New York.
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'one_time',
      fixed_amount: 10_000,
      start_date: '2028-03-01T03:00:00Z',
    });
    assert.equal(schedule.timezone, 'America/New_York');
    const [only] = await obligationsOf<ObligationOut>(api, schedule.id);
    assert.equal(only?.due_date, '2028-02-29');

    await api.post('/account/test-clock/advance', { to: '2028-03-01T04:59:59Z' });
    assert.equal((await obligationsOf<ObligationOut>(api, schedule.id))[0]?.status, 'pending');
    const moved = await api.post('/account/test-clock/advance', { to: '2028-03-01T05:00:00Z' });
    assert.equal(moved.body.data.ran['obligations.overdue'], 1);
    assert.equal((await obligationsOf<ObligationOut>(api, schedule.id))[0]?.status, 'overdue');
    const events = (await api.get('/events?type=obligation.overdue')).body.data.items;
    assert.equal(events.length, 1);
    assert.equal(events[0].data.object.id, only?.id);
  });

  test('Pacific/Auckland across its DST change, and Europe/London', async () => {
    const auckland = await newWorkspace(t, { timezone: 'Pacific/Auckland' });
    const schedule = await newSchedule(auckland.api, {
      target_type: 'generic_collection',
      frequency: 'monthly',
      fixed_amount: 1_000,
      // 12:00 UTC on 31 January is 1 February in Auckland (UTC+13).
      start_date: '2028-01-31T12:00:00Z',
      end_date: '2028-05-01T00:00:00Z',
    });
    assert.deepEqual(dates(await obligationsOf(auckland.api, schedule.id)), [
      '2028-02-01',
      '2028-03-01',
      '2028-04-01',
      '2028-05-01',
    ]);
    // Auckland leaves daylight time on 2 April 2028: 1 May starts at 12:00 UTC on 30 April.
    await auckland.api.post('/account/test-clock/advance', { to: '2028-05-01T11:59:59Z' });
    const may = (await obligationsOf(auckland.api, schedule.id))[3];
    assert.equal(may?.status, 'pending');
    await auckland.api.post('/account/test-clock/advance', { to: '2028-05-01T12:00:00Z' });
    assert.equal((await obligationsOf(auckland.api, schedule.id))[3]?.status, 'overdue');

    const london = await newWorkspace(t, { timezone: 'Europe/London' });
    const summer = await newSchedule(london.api, {
      target_type: 'generic_collection',
      frequency: 'daily',
      fixed_amount: 1_000,
      // 23:30 UTC on 31 May is 1 June in London (BST).
      start_date: '2028-05-31T23:30:00Z',
      end_date: '2028-06-02T00:00:00Z',
    });
    assert.deepEqual(dates(await obligationsOf(london.api, summer.id)), ['2028-06-01', '2028-06-02']);
  });
});

describe('allocation', () => {
  test('oldest due date first across two schedules of a plan; partial; overpayment left unallocated; reversal re-opens', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 100_000 });
    const monthly = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 10_000,
      start_date: '2028-01-25T09:00:00Z',
      end_date: '2028-03-25T09:00:00Z',
    });
    const deposit = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'one_time',
      fixed_amount: 5_000,
      start_date: '2028-01-21T09:00:00Z',
    });
    const [jan, feb, mar] = await obligationsOf<ObligationOut>(api, monthly.id);
    const [dep] = await obligationsOf<ObligationOut>(api, deposit.id);

    const first = await newPayment(api, plan.id, { amount: 12_000 });
    assert.deepEqual(first.allocations, [
      { obligationId: dep?.id, amount: 5_000, reversedAt: null },
      { obligationId: jan?.id, amount: 7_000, reversedAt: null },
    ]);
    assert.equal(first.unallocatedAmount, 0);
    assert.equal((await obligationsOf<ObligationOut>(api, deposit.id))[0]?.status, 'paid');
    assert.equal((await obligationsOf<ObligationOut>(api, monthly.id))[0]?.status, 'partially_paid');

    const second = await newPayment(api, plan.id, { amount: 40_000 });
    assert.deepEqual(
      second.allocations.map((a: { obligationId: string; amount: number }) => [a.obligationId, a.amount]),
      [
        [jan?.id, 3_000],
        [feb?.id, 10_000],
        [mar?.id, 10_000],
      ],
    );
    assert.equal(second.unallocatedAmount, 17_000);
    assert.deepEqual((await api.get(`/payments/${second.id}`)).body.data, second);
    assert.equal((await api.get(`/collection-schedules/${monthly.id}`)).body.data.status, 'completed');
    assert.equal((await api.get(`/collection-schedules/${deposit.id}`)).body.data.status, 'completed');

    const reversed = await api.post(`/payments/${first.id}/reverse`, { reason: 'bounced' });
    assert.equal(reversed.status, 200, JSON.stringify(reversed.body));
    assert.ok(
      reversed.body.data.allocations.every((a: { reversedAt: string | null }) => a.reversedAt !== null),
    );
    const depAfter = (await obligationsOf<ObligationOut>(api, deposit.id))[0];
    // 21 January has passed by the start of the 21st in UTC: the re-opened deposit is overdue at once.
    assert.equal(depAfter?.status, 'pending');
    assert.equal(depAfter?.amount_paid, 0);
    assert.equal(depAfter?.allocations[0]?.reversed_at !== null, true);
    const janAfter = (await obligationsOf<ObligationOut>(api, monthly.id))[0];
    assert.equal(janAfter?.status, 'partially_paid');
    assert.equal(janAfter?.amount_paid, 3_000);
    assert.equal((await api.get(`/collection-schedules/${monthly.id}`)).body.data.status, 'active');
    assert.equal((await api.get(`/collection-schedules/${deposit.id}`)).body.data.status, 'active');

    const track = (await api.get(`/tracks/${plan.id}`)).body.data;
    const owedAndPaid = [
      ...(await obligationsOf<ObligationOut>(api, monthly.id)),
      ...(await obligationsOf<ObligationOut>(api, deposit.id)),
    ];
    assert.equal(sum(owedAndPaid.map((o) => o.amount_paid)), 23_000);
    assert.equal(track.amountPaid, 40_000);
    const ledger = (await api.get(`/tracks/${plan.id}/ledger?limit=100`)).body.data.items;
    assert.equal(sum(ledger.map((e: { amount: number }) => e.amount)), track.balance);
    assert.equal(ledger.filter((e: { type: string }) => e.type === 'obligation.created').length, 4);
    assert.ok(
      ledger
        .filter((e: { type: string; amount: number }) => e.type.startsWith('obligation.'))
        .every((e: { amount: number }) => e.amount === 0),
    );
  });

  test('a past-due obligation re-opened by a reversal is overdue again at once', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 100_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'one_time',
      fixed_amount: 10_000,
      start_date: '2028-01-10T09:00:00Z',
    });
    await api.post('/account/test-clock/advance', { hours: 1 });
    assert.equal((await obligationsOf<ObligationOut>(api, schedule.id))[0]?.status, 'overdue');
    const payment = await newPayment(api, plan.id, { amount: 10_000 });
    assert.equal((await obligationsOf<ObligationOut>(api, schedule.id))[0]?.status, 'paid');
    await api.post(`/payments/${payment.id}/reverse`, {});
    assert.equal((await obligationsOf<ObligationOut>(api, schedule.id))[0]?.status, 'overdue');
  });

  test('a plan paid off completes its schedules, open-ended ones too: its payments paid every open obligation', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 25_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 10_000,
      start_date: NOW,
    });
    // Raised after the schedule stopped at the old balance: the obligations ask less than the new one.
    assert.equal((await api.patch(`/tracks/${plan.id}`, { amount: 35_000 })).status, 200);
    await newPayment(api, plan.id, { amount: 12_000 });
    await newPayment(api, plan.id, { amount: 23_000 });
    assert.equal((await api.get(`/collection-schedules/${schedule.id}`)).body.data.status, 'completed');
    const items = await obligationsOf<ObligationOut>(api, schedule.id);
    assert.deepEqual(
      items.map((o) => [o.status, o.amount, o.amount_paid]),
      [
        ['paid', 10_000, 10_000],
        ['paid', 10_000, 10_000],
        ['paid', 5_000, 5_000],
      ],
    );
    const completed = (await api.get('/events?type=schedule.completed')).body.data.items;
    assert.equal(completed.length, 1);
    assert.equal(completed[0].data.object.id, schedule.id);
    assert.equal(completed[0].data.object.status, 'completed');
    const paid = (await api.get('/events?type=obligation.paid')).body.data.items;
    assert.equal(paid.length, 3);
    assert.ok(
      paid.every((e: { data: { object: Record<string, unknown> } }) => !('allocations' in e.data.object)),
    );
  });

  test('100 concurrent payments of random amounts: the obligations were paid exactly what the plan was', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 10_000_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 500_000,
      start_date: NOW,
    });
    const amounts = Array.from({ length: 100 }, () => 1 + Math.floor(Math.random() * 50_000));
    const results = await Promise.all(
      amounts.map((amount) => api.post('/payments', { trackId: plan.id, amount })),
    );
    assert.ok(
      results.every((r) => r.status === 201),
      JSON.stringify(results.find((r) => r.status !== 201)?.body),
    );
    for (const r of results) {
      assert.equal(sum(r.body.data.allocations.map((a: { amount: number }) => a.amount)), r.body.data.amount);
    }
    const track = (await api.get(`/tracks/${plan.id}`)).body.data;
    assert.equal(track.amountPaid, sum(amounts));
    const items = await obligationsOf<ObligationOut>(api, schedule.id);
    assert.equal(sum(items.map((o) => o.amount_paid)), track.amountPaid);
    // Oldest first: every obligation before the last touched one is paid in full.
    const touched = items.filter((o) => o.amount_paid > 0);
    assert.ok(touched.slice(0, -1).every((o) => o.status === 'paid'));
  });
});

describe('sync_payment_plan', () => {
  test('after a partial payment, an amount change and a pause, the open obligations owe exactly the balance', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 100_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 8_000,
      start_date: NOW,
    });
    const owed = async () =>
      sum(
        (await obligationsOf<ObligationOut>(api, schedule.id))
          .filter((o) => ['pending', 'partially_paid', 'overdue'].includes(o.status))
          .map((o) => o.amount - o.amount_paid),
      );
    const balance = async () => (await api.get(`/tracks/${plan.id}`)).body.data.balance;
    assert.equal(await owed(), 96_000);

    const before = await obligationsOf<ObligationOut>(api, schedule.id);
    const dry = await act(api, schedule.id, { action: 'sync_payment_plan', dry_run: true });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.data.changes.owed_after, 100_000);
    assert.deepEqual(await obligationsOf<ObligationOut>(api, schedule.id), before);

    const synced = await act(api, schedule.id, { action: 'sync_payment_plan' });
    assert.deepEqual(synced.body.data.changes, { ...dry.body.data.changes, dry_run: false });
    assert.equal(await owed(), 100_000);
    // 100,000 over 12: four of 8,334 and eight of 8,333.
    assert.deepEqual(
      (await obligationsOf<ObligationOut>(api, schedule.id)).map((o) => o.amount),
      [8_334, 8_334, 8_334, 8_334, 8_333, 8_333, 8_333, 8_333, 8_333, 8_333, 8_333, 8_333],
    );

    await newPayment(api, plan.id, { amount: 5_000 });
    await api.patch(`/tracks/${plan.id}`, { amount: 130_000 });
    await act(api, schedule.id, { action: 'pause' });
    await act(api, schedule.id, { action: 'sync_payment_plan' });
    assert.equal(await balance(), 125_000);
    assert.equal(await owed(), 125_000);
    const first = (await obligationsOf<ObligationOut>(api, schedule.id))[0];
    assert.equal(first?.amount_paid, 5_000);
  });

  test('adds one obligation when none is open and a balance is left; a plan-less schedule cannot sync', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 30_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'one_time',
      fixed_amount: 10_000,
      start_date: NOW,
    });
    await newPayment(api, plan.id, { amount: 10_000 });
    assert.equal((await api.get(`/collection-schedules/${schedule.id}`)).body.data.status, 'completed');
    const res = await act(api, schedule.id, { action: 'sync_payment_plan' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, 'active');
    assert.deepEqual(
      res.body.data.changes.created.map((o: { due_date: string; amount: number }) => [o.due_date, o.amount]),
      [['2028-01-21', 20_000]],
    );
    assert.equal(res.body.data.changes.owed_after, 20_000);
    assert.equal(res.body.data.next_due_date, '2028-01-21');

    const generic = await newSchedule(api, {
      target_type: 'generic_collection',
      frequency: 'one_time',
      fixed_amount: 1_000,
      start_date: NOW,
    });
    const refused = await act(api, generic.id, { action: 'sync_payment_plan' });
    assert.equal(refused.status, 422);
    assert.ok(refused.body.error.details.fields.action);
  });
});

describe('lists and scopes', () => {
  test('filters by status, target_type and target_id; schedules:read reads, only schedules:write acts', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const plan = await newTrack(api);
    const a = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'one_time',
      fixed_amount: 1_000,
      start_date: NOW,
    });
    const b = await newSchedule(api, {
      target_type: 'generic_collection',
      frequency: 'one_time',
      fixed_amount: 1_000,
      start_date: NOW,
      status: 'draft',
    });
    const ids = async (query: string) =>
      (await api.get(`/collection-schedules?${query}`)).body.data.items.map((s: { id: string }) => s.id);
    assert.deepEqual(await ids(''), [b.id, a.id]);
    assert.deepEqual(await ids('status=draft'), [b.id]);
    assert.deepEqual(await ids('target_type=payment_plan'), [a.id]);
    assert.deepEqual(await ids(`target_id=${plan.id}`), [a.id]);
    assert.equal((await api.get('/collection-schedules?status=done')).status, 422);

    const reader = await newKey(t, workspaceId, { scopes: ['schedules:read'] });
    assert.equal((await reader.api.get(`/collection-schedules/${a.id}`)).status, 200);
    assert.equal((await reader.api.get(`/collection-schedules/${a.id}/obligations`)).status, 200);
    const refused = await reader.api.patch(`/collection-schedules/${a.id}`, { action: 'pause' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.details.required_scope, 'schedules:write');
    const tracksOnly = await newKey(t, workspaceId, { scopes: ['tracks:write'] });
    assert.equal((await tracksOnly.api.get('/collection-schedules')).status, 403);
  });

  test('another workspace or mode sees none of them', async () => {
    const a = await newWorkspace(t);
    const b = await newWorkspace(t);
    const schedule = await newSchedule(a.api, {
      target_type: 'generic_collection',
      frequency: 'one_time',
      fixed_amount: 1_000,
      start_date: NOW,
    });
    assert.equal((await b.api.get(`/collection-schedules/${schedule.id}`)).status, 404);
    assert.equal((await a.live.get(`/collection-schedules/${schedule.id}`)).status, 404);
    assert.equal((await b.api.get(`/collection-schedules/${schedule.id}/obligations`)).status, 404);
    assert.equal(
      (await b.api.patch(`/collection-schedules/${schedule.id}`, { action: 'cancel' })).status,
      404,
    );
  });
});

describe('plan changes reach its schedules', () => {
  test('archiving a plan cancels its schedules and their open obligations', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 100_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'weekly',
      fixed_amount: 5_000,
      start_date: NOW,
    });
    await newPayment(api, plan.id, { amount: 5_000 });
    assert.equal((await api.delete(`/tracks/${plan.id}`)).status, 200);
    const after = (await api.get(`/collection-schedules/${schedule.id}`)).body.data;
    assert.equal(after.status, 'cancelled');
    const items = await obligationsOf<ObligationOut>(api, schedule.id);
    assert.equal(items[0]?.status, 'paid');
    assert.ok(items.slice(1).every((o) => o.status === 'cancelled'));
    const types = (await api.get('/events?type=schedule.cancelled')).body.data.items;
    assert.equal(types.length, 1);
    assert.deepEqual(types[0].data.previous_attributes, { status: 'active' });
    // Nothing is topped up or turns overdue afterwards.
    await api.post('/account/test-clock/advance', { days: 60 });
    assert.deepEqual(await obligationsOf<ObligationOut>(api, schedule.id), items);
  });

  test('an amount lowered to what was paid completes the plan and its schedules', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 100_000 });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 20_000,
      start_date: NOW,
    });
    await newPayment(api, plan.id, { amount: 30_000 });
    const res = await api.patch(`/tracks/${plan.id}`, { amount: 30_000 });
    assert.equal(res.body.data.status, 'completed');
    assert.equal((await api.get(`/collection-schedules/${schedule.id}`)).body.data.status, 'completed');
    const open = (await obligationsOf<ObligationOut>(api, schedule.id)).filter((o) =>
      ['pending', 'partially_paid', 'overdue'].includes(o.status),
    );
    assert.equal(open.length, 0);
  });

  test('sync leaves a partly paid obligation that owes nothing more paid, with its event and ledger entry', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 120_000 });
    const oneTime = (fixed: number, day: string) =>
      newSchedule(api, {
        target_type: 'payment_plan',
        target_id: plan.id,
        frequency: 'one_time',
        fixed_amount: fixed,
        start_date: `${day}T09:00:00Z`,
      });
    await oneTime(10_000, '2028-01-19');
    const b = await oneTime(10_000, '2028-01-25');
    await oneTime(100_000, '2028-03-01');
    await newPayment(api, plan.id, { amount: 15_000 });
    assert.equal((await obligationsOf<ObligationOut>(api, b.id))[0]?.amount_paid, 5_000);
    // As a plan was left before obligations were bounded by the balance: the March obligation asks the whole
    // balance (105,000), so b should owe nothing more.
    await t.ctx.db
      .updateTable('obligations')
      .set({ amount: 105_000 })
      .where('track_id', '=', plan.id)
      .where('due_date', '=', '2028-03-01')
      .execute();
    const synced = await act(api, b.id, { action: 'sync_payment_plan' });
    assert.equal(synced.status, 200, JSON.stringify(synced.body));
    assert.deepEqual(synced.body.data.changes.updated, [
      {
        id: (await obligationsOf<ObligationOut>(api, b.id))[0]?.id,
        due_date: '2028-01-25',
        amount: 5_000,
        previous_amount: 10_000,
        status: 'paid',
      },
    ]);
    assert.equal(synced.body.data.changes.owed_after, 0);
    assert.equal(synced.body.data.status, 'completed');
    const paid = (await api.get('/events?type=obligation.paid')).body.data.items;
    assert.equal(paid[0].data.object.schedule_id, b.id);
    const ledger = (await api.get(`/tracks/${plan.id}/ledger?type=obligation.paid`)).body.data.items;
    assert.equal(ledger.length, 2);
    assert.equal(ledger[0].amount, 0);
  });
});
