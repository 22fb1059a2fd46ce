import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { obligationsOf, threeMonthlyDebits } from '../helpers/collections.js';
import { newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

// Write-offs: part or all of a plan's balance given up (not a payment), its open obligations written off latest
// due date first, reversible while it is the plan's last money change.

const NOW = '2028-01-20T12:00:00.000Z';

type Row = Record<string, any>;

/** A plan of ₦900.00 in three monthly instalments of ₦300.00 due 25 Jan, 25 Feb and 25 Mar 2028. */
const threeInstalments = (api: Client) => threeMonthlyDebits(api, 30_000, 'manual');

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const shapeOf = (items: Row[]) => items.map((o) => [o.due_date, o.amount, o.amount_paid, o.status]);

async function planOf(api: Client, id: string): Promise<Row> {
  return (await api.get(`/tracks/${id}`)).body.data;
}

async function ledgerOf(api: Client, id: string): Promise<Row[]> {
  return [...(await api.get(`/tracks/${id}/ledger?limit=100`)).body.data.items].reverse();
}

async function eventsOf(api: Client, type: string): Promise<Row[]> {
  return (await api.get(`/events?limit=100&type=${type}`)).body.data.items;
}

async function scheduleOf(api: Client, id: string): Promise<Row> {
  return (await api.get(`/collection-schedules/${id}`)).body.data;
}

/** The plan's ledger sums to its balance, and balance = amount - amountPaid. */
async function assertBooksBalance(api: Client, id: string) {
  const plan = await planOf(api, id);
  assert.equal(plan.balance, plan.amount - plan.amountPaid);
  const sum = (await ledgerOf(api, id)).reduce((s, e) => s + e.amount, 0);
  assert.equal(sum, plan.balance);
  return plan;
}

describe('POST /tracks/{id}/write-off', () => {
  test('a partial write-off lowers amount and balance by a plan.written_off entry and gives up the latest obligations first', async () => {
    const { api } = await newWorkspace(t);
    const { plan, schedule } = await threeInstalments(api);
    await newPayment(api, plan.id, { amount: 10_000 });

    const res = await api.post(`/tracks/${plan.id}/write-off`, { amount: 45_000, reason: 'Hardship agreed' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.amount, 45_000);
    assert.equal(res.body.data.amountPaid, 10_000);
    assert.equal(res.body.data.balance, 35_000);
    assert.equal(res.body.data.status, 'active');

    // 25 Mar's whole ask goes (written off, amount kept); 25 Feb gives up 15_000 and stays open.
    assert.deepEqual(shapeOf(await obligationsOf(api, schedule.id)), [
      ['2028-01-25', 30_000, 10_000, 'partially_paid'],
      ['2028-02-25', 15_000, 0, 'pending'],
      ['2028-03-25', 30_000, 0, 'written_off'],
    ]);
    const written = await api.get(`/obligations?track_id=${plan.id}&status=written_off`);
    assert.equal(written.status, 200);
    assert.deepEqual(
      written.body.data.items.map((o: Row) => o.due_date),
      ['2028-03-25'],
    );

    const ledger = await ledgerOf(api, plan.id);
    const entry = ledger.at(-1) as Row;
    assert.equal(entry.type, 'plan.written_off');
    assert.equal(entry.amount, -45_000);
    assert.equal(entry.balanceAfter, 35_000);
    assert.equal(entry.refs.reason, 'Hardship agreed');
    assert.match(entry.refs.writeOffId, /^wof_/);
    await assertBooksBalance(api, plan.id);

    // Not a payment: none is listed for it.
    assert.equal((await api.get(`/tracks/${plan.id}/payments`)).body.data.items.length, 1);
    const [event] = await eventsOf(api, 'track.written_off');
    assert.equal(event?.data.object.id, plan.id);
    assert.equal(event?.data.object.balance, 35_000);
    assert.deepEqual(event?.data.object.writeOff, {
      id: entry.refs.writeOffId,
      amount: 45_000,
      reason: 'Hardship agreed',
      createdAt: NOW,
      reversedAt: null,
    });
    assert.equal((await scheduleOf(api, schedule.id)).status, 'active');
    const [audit] = (await api.get(`/audit-log?record_id=${plan.id}`)).body.data.items;
    assert.equal(audit.action, 'tracks.write-off');
    assert.equal(audit.reason, 'Hardship agreed');
  });

  test('the whole balance by default: every open obligation written off, the plan and its schedule completed; a later payment is refused', async () => {
    const { api } = await newWorkspace(t);
    const { plan, schedule } = await threeInstalments(api);
    await newPayment(api, plan.id, { amount: 40_000 });

    const res = await api.post(`/tracks/${plan.id}/write-off`, { reason: 'Customer emigrated' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.amount, 40_000);
    assert.equal(res.body.data.balance, 0);
    assert.equal(res.body.data.status, 'completed');
    assert.deepEqual(shapeOf(await obligationsOf(api, schedule.id)), [
      ['2028-01-25', 30_000, 30_000, 'paid'],
      ['2028-02-25', 30_000, 10_000, 'written_off'],
      ['2028-03-25', 30_000, 0, 'written_off'],
    ]);
    assert.equal((await scheduleOf(api, schedule.id)).status, 'completed');
    assert.equal((await eventsOf(api, 'track.completed')).length, 1);
    await assertBooksBalance(api, plan.id);

    const late = await api.post('/payments', { trackId: plan.id, amount: 5_000, method: 'cash' });
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.error.code, 'invalid_state');
    assert.equal((await planOf(api, plan.id)).balance, 0);

    const again = await api.post(`/tracks/${plan.id}/write-off`, { reason: 'again' });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'invalid_state');
  });

  test('bad input is refused, naming the field, and changes nothing', async () => {
    const { api } = await newWorkspace(t);
    const { plan } = await threeInstalments(api);
    const cases: [Row, string][] = [
      [{ amount: 90_001, reason: 'x' }, 'amount'],
      [{ amount: 0, reason: 'x' }, 'amount'],
      [{ amount: -5, reason: 'x' }, 'amount'],
      [{ amount: 10.5, reason: 'x' }, 'amount'],
      [{ amount: '100', reason: 'x' }, 'amount'],
      [{ amount: 100 }, 'reason'],
      [{ amount: 100, reason: '' }, 'reason'],
      [{ amount: 100, reason: '   ' }, 'reason'],
      [{ amount: 100, reason: 'x'.repeat(501) }, 'reason'],
    ];
    for (const [body, field] of cases) {
      const res = await api.post(`/tracks/${plan.id}/write-off`, body);
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'validation_error');
      assert.ok(field in res.body.error.details.fields, `${JSON.stringify(body)} names ${field}`);
    }
    const missing = await api.post('/tracks/trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C/write-off', { reason: 'x' });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'not_found');
    const archived = await newTrack(api);
    assert.equal((await api.delete(`/tracks/${archived.id}`)).status, 200);
    const onArchived = await api.post(`/tracks/${archived.id}/write-off`, { reason: 'x' });
    assert.equal(onArchived.status, 409);
    assert.equal(onArchived.body.error.code, 'invalid_state');

    const unchanged = await assertBooksBalance(api, plan.id);
    assert.equal(unchanged.balance, 90_000);
    assert.equal(unchanged.amount, 90_000);
    assert.equal((await eventsOf(api, 'track.written_off')).length, 0);
  });
});

describe('POST /tracks/{id}/write-off/reverse', () => {
  test('restores the balance, every obligation and the schedule exactly, and the plan is active again', async () => {
    const { api } = await newWorkspace(t);
    const { plan, schedule } = await threeInstalments(api);
    await newPayment(api, plan.id, { amount: 40_000 });
    const before = await obligationsOf(api, schedule.id);
    const written = await api.post(`/tracks/${plan.id}/write-off`, { reason: 'Gone' });
    assert.equal(written.body.data.status, 'completed');

    const res = await api.post(`/tracks/${plan.id}/write-off/reverse`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.amount, 90_000);
    assert.equal(res.body.data.balance, 50_000);
    assert.equal(res.body.data.status, 'active');
    assert.deepEqual(shapeOf(await obligationsOf(api, schedule.id)), shapeOf(before));
    assert.equal((await scheduleOf(api, schedule.id)).status, 'active');

    const ledger = await ledgerOf(api, plan.id);
    const last = ledger.at(-1) as Row;
    assert.equal(last.type, 'plan.write_off_reversed');
    assert.equal(last.amount, 50_000);
    assert.equal(last.balanceAfter, 50_000);
    assert.equal(last.refs.writeOffId, (ledger.at(-2) as Row).refs.writeOffId);
    await assertBooksBalance(api, plan.id);
    const [event] = await eventsOf(api, 'track.write_off_reversed');
    assert.equal(event?.data.object.balance, 50_000);
    assert.equal(event?.data.object.writeOff.reversedAt, NOW);

    // Reversing twice, or with no write-off at all: invalid_state.
    const twice = await api.post(`/tracks/${plan.id}/write-off/reverse`);
    assert.equal(twice.status, 409);
    assert.equal(twice.body.error.code, 'invalid_state');
    const none = await api.post(`/tracks/${(await newTrack(api)).id}/write-off/reverse`);
    assert.equal(none.status, 409);
    assert.equal(none.body.error.code, 'invalid_state');
    assert.equal((await planOf(api, plan.id)).balance, 50_000);

    // The money still collects as before: a payment pays the obligations oldest first.
    await newPayment(api, plan.id, { amount: 50_000 });
    assert.deepEqual(
      (await obligationsOf(api, schedule.id)).map((o) => o.status),
      ['paid', 'paid', 'paid'],
    );
    assert.equal((await planOf(api, plan.id)).status, 'completed');
  });

  test('a partial write-off reversed gives the partly written-off obligation its amount back', async () => {
    const { api } = await newWorkspace(t);
    const { plan, schedule } = await threeInstalments(api);
    const before = await obligationsOf(api, schedule.id);
    assert.equal(
      (await api.post(`/tracks/${plan.id}/write-off`, { amount: 50_000, reason: 'x' })).status,
      200,
    );
    assert.deepEqual(
      shapeOf(await obligationsOf(api, schedule.id)).map((o) => o.slice(1)),
      [
        [30_000, 0, 'pending'],
        [10_000, 0, 'pending'],
        [30_000, 0, 'written_off'],
      ],
    );
    assert.equal((await api.post(`/tracks/${plan.id}/write-off/reverse`)).status, 200);
    assert.deepEqual(shapeOf(await obligationsOf(api, schedule.id)), shapeOf(before));
    const restored = await assertBooksBalance(api, plan.id);
    assert.equal(restored.amount, 90_000);
    assert.equal(restored.balance, 90_000);
  });

  test('reversed after their due dates passed, the obligations are open again as overdue (obligation.overdue), and the schedule back in force', async () => {
    const { api } = await newWorkspace(t);
    const { plan, schedule } = await threeInstalments(api);
    assert.equal((await api.post(`/tracks/${plan.id}/write-off`, { reason: 'Gone' })).status, 200);
    assert.equal((await scheduleOf(api, schedule.id)).status, 'completed');
    await api.post('/account/test-clock/advance', { to: '2028-02-27T12:00:00Z' });
    assert.equal((await eventsOf(api, 'obligation.overdue')).length, 0, 'written off: never overdue');

    const res = await api.post(`/tracks/${plan.id}/write-off/reverse`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(shapeOf(await obligationsOf(api, schedule.id)), [
      ['2028-01-25', 30_000, 0, 'overdue'],
      ['2028-02-25', 30_000, 0, 'overdue'],
      ['2028-03-25', 30_000, 0, 'pending'],
    ]);
    assert.equal((await eventsOf(api, 'obligation.overdue')).length, 2);
    assert.equal((await scheduleOf(api, schedule.id)).status, 'active');
    assert.equal((await assertBooksBalance(api, plan.id)).balance, 90_000);
  });

  test('refused once money moved after it: a later payment, or an adjustment', async () => {
    const { api } = await newWorkspace(t);
    const { plan } = await threeInstalments(api);
    assert.equal(
      (await api.post(`/tracks/${plan.id}/write-off`, { amount: 30_000, reason: 'x' })).status,
      200,
    );
    await newPayment(api, plan.id, { amount: 5_000 });
    const res = await api.post(`/tracks/${plan.id}/write-off/reverse`);
    assert.equal(res.status, 409, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'invalid_state');
    assert.match(res.body.error.message, /changed after write-off/);
    const plan2 = await assertBooksBalance(api, plan.id);
    assert.equal(plan2.balance, 55_000);

    const other = (await threeInstalments(api)).plan;
    assert.equal(
      (await api.post(`/tracks/${other.id}/write-off`, { amount: 30_000, reason: 'x' })).status,
      200,
    );
    assert.equal((await api.patch(`/tracks/${other.id}`, { amount: 50_000 })).status, 200);
    const adjusted = await api.post(`/tracks/${other.id}/write-off/reverse`);
    assert.equal(adjusted.status, 409);
    assert.equal((await assertBooksBalance(api, other.id)).balance, 50_000);
  });
});

describe('a payment racing a write-off', () => {
  test('exactly one lands when both cannot; the balance is exact, never negative, and the obligations agree', async () => {
    for (let round = 0; round < 4; round++) {
      const { api } = await newWorkspace(t);
      const { plan, schedule } = await threeInstalments(api);
      const [payment, writeOff] = await Promise.all([
        api.post('/payments', { trackId: plan.id, amount: 60_000, method: 'cash' }),
        api.post(`/tracks/${plan.id}/write-off`, { amount: 50_000, reason: 'race' }),
      ]);
      const paid = payment.status === 201 ? 60_000 : 0;
      const written = writeOff.status === 200 ? 50_000 : 0;
      // Together they exceed the balance: exactly one lands.
      assert.ok((paid === 0) !== (written === 0), 'exactly one of them lands');
      if (payment.status !== 201) assert.equal(payment.body.error.code, 'amount_exceeds_balance');
      if (writeOff.status !== 200) {
        assert.equal(writeOff.status, 422, JSON.stringify(writeOff.body));
        assert.ok('amount' in writeOff.body.error.details.fields);
      }
      const after = await assertBooksBalance(api, plan.id);
      assert.equal(after.amountPaid, paid);
      assert.equal(after.amount, 90_000 - written);
      assert.equal(after.balance, 90_000 - written - paid);
      assert.ok(after.balance >= 0);
      const obligations = await obligationsOf(api, schedule.id);
      const open = obligations.filter((o) => ['pending', 'partially_paid', 'overdue'].includes(o.status));
      const asked = open.reduce((s, o) => s + o.amount - o.amount_paid, 0);
      assert.ok(
        asked <= after.balance,
        `open obligations ask ${asked}, more than the balance ${after.balance}`,
      );
      assert.equal(
        obligations.reduce((s, o) => s + o.amount_paid, 0),
        paid,
      );
    }
  });
});
