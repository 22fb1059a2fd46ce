import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { clockAt } from '../helpers/clock-at.js';
import { newSchedule } from '../helpers/collections.js';
import { newCustomer, newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

/** The app's frozen clock: 15 March 2028, 13:00 in Lagos. */
const NOW = '2028-03-15T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const at = clockAt(() => t, NOW);

interface Item {
  id: string;
  schedule_id: string;
  track_id: string | null;
  customer_id: string | null;
  due_date: string;
  amount: number;
  amount_paid: number;
  amount_due: number;
  status: string;
}

async function page(api: Client, query = '') {
  const res = await api.get(`/obligations${query ? `?${query}` : ''}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as { items: Item[]; has_more: boolean; next_cursor: string | null };
}

/** Every item of the list with `query`, following the cursor page by page. */
async function all(api: Client, query = '', limit = 100): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | null = null;
  do {
    const params = [query, `limit=${limit}`, cursor ? `cursor=${cursor}` : ''].filter(Boolean).join('&');
    const data = await page(api, params);
    assert.ok(data.items.length <= limit);
    items.push(...data.items);
    assert.equal(data.has_more, data.next_cursor !== null);
    cursor = data.next_cursor;
  } while (cursor);
  return items;
}

const dueDates = (items: Item[]) => items.map((o) => o.due_date);

async function invalid(api: Client, query: string, field: string) {
  const res = await api.get(`/obligations?${query}`);
  assert.equal(res.status, 422, `${query}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.error.code, 'validation_error');
  assert.ok(field in res.body.error.details.fields, `${query}: ${JSON.stringify(res.body.error.details)}`);
}

/**
 * A Lagos workspace owing on several schedules, as of NOW (the worker has not run, so no obligation is recorded
 * overdue yet):
 * - Ada's plan A: monthly 30,000 due 10 Jan (paid), 10 Feb (10,000 paid) and 10 Mar (unpaid);
 * - Bola's plan B: monthly 20,000 due 20 Mar, 20 Apr, 20 May; Bola's plan D: one 5,000 due 20 Mar;
 * - a schedule without a plan: 7,000 due 1 Apr; Ada's plan C: 4,000 due 15 Apr, its schedule cancelled.
 */
async function owing() {
  const ws = await newWorkspace(t, { timezone: 'Africa/Lagos' });
  const { api } = ws;
  const ada = await newCustomer(api, { name: 'Ada' });
  const bola = await newCustomer(api, { name: 'Bola' });
  const built = await at('2028-01-02T09:00:00.000Z', async () => {
    const a = await newTrack(api, { customerId: ada.id, amount: 90_000 });
    const sa = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: a.id,
      frequency: 'monthly',
      fixed_amount: 30_000,
      start_date: '2028-01-10T09:00:00Z',
      end_date: '2028-03-10T09:00:00Z',
    });
    const b = await newTrack(api, { customerId: bola.id, amount: 60_000 });
    const sb = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: b.id,
      frequency: 'monthly',
      fixed_amount: 20_000,
      start_date: '2028-03-20T09:00:00Z',
      end_date: '2028-05-20T09:00:00Z',
    });
    const d = await newTrack(api, { customerId: bola.id, amount: 5_000 });
    const sd = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: d.id,
      frequency: 'one_time',
      fixed_amount: 5_000,
      start_date: '2028-03-20T09:00:00Z',
    });
    const generic = await newSchedule(api, {
      target_type: 'generic_collection',
      target_id: null,
      frequency: 'one_time',
      fixed_amount: 7_000,
      start_date: '2028-04-01T09:00:00Z',
    });
    const c = await newTrack(api, { customerId: ada.id, amount: 4_000 });
    const sc = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: c.id,
      frequency: 'one_time',
      fixed_amount: 4_000,
      start_date: '2028-04-15T09:00:00Z',
    });
    const cancelled = await api.patch(`/collection-schedules/${sc.id}`, { action: 'cancel' });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    return { a, sa, b, sb, d, sd, generic, c, sc };
  });
  await at('2028-01-09T09:00:00.000Z', () => newPayment(api, built.a.id, { amount: 30_000 }));
  await at('2028-02-05T09:00:00.000Z', () => newPayment(api, built.a.id, { amount: 10_000 }));
  return { ...ws, ada, bola, ...built };
}

const ALL_DUE = [
  '2028-01-10',
  '2028-02-10',
  '2028-03-10',
  '2028-03-20',
  '2028-03-20',
  '2028-04-01',
  '2028-04-15',
  '2028-04-20',
  '2028-05-20',
];

describe('GET /obligations', () => {
  test('every obligation across schedules, what falls due first first (due date, then id), each as its schedule lists it plus customer_id and amount_due', async () => {
    const w = await owing();
    const items = await all(w.api);
    assert.deepEqual(dueDates(items), ALL_DUE);
    // Ties on a due date go by id: B's obligation was made before D's.
    const tie = items.filter((o) => o.due_date === '2028-03-20');
    assert.deepEqual(
      tie.map((o) => o.schedule_id),
      [w.sb.id, w.sd.id],
    );
    assert.ok((tie[0]?.id ?? '') < (tie[1]?.id ?? ''));
    assert.deepEqual(
      items.map((o) => [o.status, o.amount_paid, o.amount_due, o.customer_id]),
      [
        ['paid', 30_000, 0, w.ada.id],
        ['overdue', 10_000, 20_000, w.ada.id],
        ['overdue', 0, 30_000, w.ada.id],
        ['pending', 0, 20_000, w.bola.id],
        ['pending', 0, 5_000, w.bola.id],
        ['pending', 0, 7_000, null],
        ['cancelled', 0, 0, w.ada.id],
        ['pending', 0, 20_000, w.bola.id],
        ['pending', 0, 20_000, w.bola.id],
      ],
    );
    // The same record as the schedule's own list, status included.
    for (const schedule of [w.sa, w.sb, w.sd, w.generic, w.sc]) {
      const own = (await w.api.get(`/collection-schedules/${schedule.id}/obligations?limit=100`)).body.data
        .items;
      for (const record of own) {
        const listed = items.find((o) => o.id === record.id);
        assert.ok(listed, record.id);
        const { customer_id, amount_due, ...rest } = listed;
        assert.deepEqual(rest, record);
      }
    }
  });

  test('status: as of now on the workspace clock, the same before and after the worker records overdue', async () => {
    const w = await owing();
    const byStatus = async () =>
      Object.fromEntries(
        await Promise.all(
          ['pending', 'partially_paid', 'paid', 'overdue', 'cancelled', 'written_off'].map(async (status) => [
            status,
            dueDates(await all(w.api, `status=${status}`)),
          ]),
        ),
      );
    const expected = {
      pending: ['2028-03-20', '2028-03-20', '2028-04-01', '2028-04-20', '2028-05-20'],
      partially_paid: [],
      paid: ['2028-01-10'],
      overdue: ['2028-02-10', '2028-03-10'],
      cancelled: ['2028-04-15'],
      written_off: [],
    };
    assert.deepEqual(await byStatus(), expected);
    assert.deepEqual((await w.api.get('/events?type=obligation.overdue')).body.data.items, []);

    // The worker's sweep records what the list already showed.
    const moved = await w.api.post('/account/test-clock/advance', { hours: 1 });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.data.ran['obligations.overdue'], 2);
    assert.deepEqual(await byStatus(), expected);
    const [overdueFeb] = await all(w.api, 'status=overdue');
    assert.deepEqual([overdueFeb?.amount_paid, overdueFeb?.amount_due], [10_000, 20_000]);

    // Past the end of 20 March in Lagos, both obligations due that day turn overdue; the one of 1 April not yet.
    await w.api.post('/account/test-clock/advance', { to: '2028-03-20T23:00:00Z' });
    assert.deepEqual(dueDates(await all(w.api, 'status=overdue')), [
      '2028-02-10',
      '2028-03-10',
      '2028-03-20',
      '2028-03-20',
    ]);
  });

  test('a pending obligation is overdue from the start of the day after its due date in the zone, before any sweep', async () => {
    const w = await owing();
    // 22:59 UTC on 20 March is 23:59 in Lagos: still due that day.
    t.clock.set(new Date('2028-03-20T22:59:59.000Z'));
    try {
      assert.deepEqual(dueDates(await all(w.api, `track_id=${w.b.id}&status=pending`)), [
        '2028-03-20',
        '2028-04-20',
        '2028-05-20',
      ]);
      t.clock.set(new Date('2028-03-20T23:00:00.000Z'));
      assert.deepEqual(dueDates(await all(w.api, `track_id=${w.b.id}&status=overdue`)), ['2028-03-20']);
      assert.deepEqual(dueDates(await all(w.api, `track_id=${w.b.id}&status=pending`)), [
        '2028-04-20',
        '2028-05-20',
      ]);
      const own = (await w.api.get(`/collection-schedules/${w.sb.id}/obligations?status=overdue`)).body.data
        .items;
      assert.deepEqual(dueDates(own), ['2028-03-20']);
    } finally {
      t.clock.set(new Date(NOW));
    }
  });

  test('due_from and due_to are inclusive calendar dates', async () => {
    const w = await owing();
    assert.deepEqual(dueDates(await all(w.api, 'due_from=2028-03-10&due_to=2028-04-15')), [
      '2028-03-10',
      '2028-03-20',
      '2028-03-20',
      '2028-04-01',
      '2028-04-15',
    ]);
    assert.deepEqual(dueDates(await all(w.api, 'due_from=2028-04-20')), ['2028-04-20', '2028-05-20']);
    assert.deepEqual(dueDates(await all(w.api, 'due_to=2028-01-10')), ['2028-01-10']);
    assert.deepEqual(dueDates(await all(w.api, 'due_from=2028-03-20&due_to=2028-03-20')), [
      '2028-03-20',
      '2028-03-20',
    ]);
    assert.deepEqual(await all(w.api, 'due_from=2029-01-01'), []);
  });

  test('customer_id, track_id and schedule_id, alone and combined with each other and with status and dates', async () => {
    const w = await owing();
    const ids = async (query: string) => (await all(w.api, query)).map((o) => [o.due_date, o.track_id]);
    assert.deepEqual(await ids(`customer_id=${w.ada.id}`), [
      ['2028-01-10', w.a.id],
      ['2028-02-10', w.a.id],
      ['2028-03-10', w.a.id],
      ['2028-04-15', w.c.id],
    ]);
    assert.deepEqual(await ids(`customer_id=${w.bola.id}`), [
      ['2028-03-20', w.b.id],
      ['2028-03-20', w.d.id],
      ['2028-04-20', w.b.id],
      ['2028-05-20', w.b.id],
    ]);
    assert.deepEqual(await ids(`track_id=${w.b.id}`), [
      ['2028-03-20', w.b.id],
      ['2028-04-20', w.b.id],
      ['2028-05-20', w.b.id],
    ]);
    const generic = await all(w.api, `schedule_id=${w.generic.id}`);
    assert.deepEqual(
      generic.map((o) => [o.due_date, o.track_id, o.customer_id, o.amount_due]),
      [['2028-04-01', null, null, 7_000]],
    );
    assert.deepEqual(await ids(`customer_id=${w.ada.id}&status=overdue`), [
      ['2028-02-10', w.a.id],
      ['2028-03-10', w.a.id],
    ]);
    assert.deepEqual(await ids(`customer_id=${w.bola.id}&status=pending&due_to=2028-04-30`), [
      ['2028-03-20', w.b.id],
      ['2028-03-20', w.d.id],
      ['2028-04-20', w.b.id],
    ]);
    assert.deepEqual(await ids(`track_id=${w.b.id}&schedule_id=${w.sb.id}&due_from=2028-04-01`), [
      ['2028-04-20', w.b.id],
      ['2028-05-20', w.b.id],
    ]);
    // Filters that do not meet find nothing.
    assert.deepEqual(await ids(`customer_id=${w.ada.id}&track_id=${w.b.id}`), []);
    assert.deepEqual(await ids(`schedule_id=${w.sa.id}&status=pending`), []);
    assert.deepEqual(await ids('customer_id=cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B'), []);
  });

  test('pagination: pages of every size give the whole list once, in order, also with a filter', async () => {
    const w = await owing();
    for (const limit of [1, 2, 4, 9, 20]) {
      assert.deepEqual(dueDates(await all(w.api, '', limit)), ALL_DUE, `limit ${limit}`);
    }
    const first = await page(w.api, 'limit=4');
    assert.equal(first.items.length, 4);
    assert.equal(first.has_more, true);
    const rest = await page(w.api, `limit=100&cursor=${first.next_cursor}`);
    assert.deepEqual(dueDates([...first.items, ...rest.items]), ALL_DUE);
    assert.equal(rest.has_more, false);
    assert.equal(rest.next_cursor, null);
    assert.equal((await page(w.api)).items.length, 9);
    const pending = await all(w.api, 'status=pending', 2);
    assert.deepEqual(dueDates(pending), [
      '2028-03-20',
      '2028-03-20',
      '2028-04-01',
      '2028-04-20',
      '2028-05-20',
    ]);
    // A cursor of another list is refused.
    const plans = (await w.api.get('/tracks?limit=1')).body.data;
    await invalid(w.api, `cursor=${plans.next_cursor}`, 'cursor');
  });

  test('validation: each bad filter is a validation_error naming its field', async () => {
    const { api } = await newWorkspace(t);
    await invalid(api, 'status=late', 'status');
    await invalid(api, 'status=', 'status');
    await invalid(api, 'due_from=2028-02-30', 'due_from');
    await invalid(api, 'due_to=15-03-2028', 'due_to');
    await invalid(api, 'due_from=2028-03-15T00:00:00Z', 'due_from');
    await invalid(api, 'due_from=2028-04-02&due_to=2028-04-01', 'due_from');
    await invalid(api, 'limit=0', 'limit');
    await invalid(api, 'limit=101', 'limit');
    await invalid(api, 'cursor=nonsense', 'cursor');
    await invalid(api, 'customer_id=', 'customer_id');
    await invalid(api, 'trackId=trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C', 'trackId');
    const range = await api.get('/obligations?due_from=2028-04-02&due_to=2028-04-01');
    assert.equal(range.body.error.details.fields.due_from, 'must not be after due_to');
  });

  test("isolation: another workspace's or mode's ids find nothing, and each sees only its own", async () => {
    const w = await owing();
    const stranger = await newWorkspace(t);
    const theirs = await newTrack(stranger.api, { amount: 1_000 });
    await newSchedule(stranger.api, {
      target_type: 'payment_plan',
      target_id: theirs.id,
      frequency: 'one_time',
      fixed_amount: 1_000,
      start_date: '2028-03-01T09:00:00Z',
    });
    assert.deepEqual(dueDates(await all(stranger.api)), ['2028-03-01']);
    assert.deepEqual(dueDates(await all(w.api)), ALL_DUE);
    for (const query of [
      `customer_id=${w.ada.id}`,
      `track_id=${w.a.id}`,
      `schedule_id=${w.sa.id}`,
      `status=overdue&track_id=${w.a.id}`,
    ]) {
      assert.deepEqual(await all(stranger.api, query), [], query);
      assert.deepEqual(await all(w.live, query), [], `live ${query}`);
    }
    assert.deepEqual(await all(w.api, `track_id=${theirs.id}`), []);
    // Live mode of the same workspace: its own obligations only.
    const livePlan = await newTrack(w.live, { amount: 2_000 });
    await newSchedule(w.live, {
      target_type: 'payment_plan',
      target_id: livePlan.id,
      frequency: 'one_time',
      fixed_amount: 2_000,
      start_date: '2028-06-01T09:00:00Z',
    });
    assert.deepEqual(dueDates(await all(w.live)), ['2028-06-01']);
    assert.deepEqual(dueDates(await all(w.api)), ALL_DUE);
    assert.deepEqual(await all(w.api, `track_id=${livePlan.id}`), []);
  });

  test('scope: schedules:read (or write) lists; a key without it gets 403 naming schedules:read', async () => {
    const { workspaceId } = await newWorkspace(t);
    const plansOnly = await newKey(t, workspaceId, { scopes: ['tracks:read', 'payments:read'] });
    const refused = await plansOnly.api.get('/obligations');
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'forbidden');
    assert.equal(refused.body.error.details.required_scope, 'schedules:read');
    for (const scopes of [['schedules:read'], ['schedules:write']] as const) {
      const key = await newKey(t, workspaceId, { scopes: [...scopes] });
      assert.equal((await key.api.get('/obligations')).status, 200, scopes.join());
    }
    const none = await t.app.inject({ method: 'GET', url: '/api/v1/obligations' });
    assert.equal(none.statusCode, 401);
  });
});
