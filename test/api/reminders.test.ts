import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runSweepsNow } from '../../src/jobs/sweeps.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

const NOW = '2028-01-20T12:00:00.000Z';
const MINUTE_MS = 60_000;

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const lagos = () => newWorkspace(t, { timezone: 'Africa/Lagos' });

async function remindersOf(api: Client, query = '') {
  const res = await api.get(`/reminders?limit=100${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return [...res.body.data.items].reverse() as Record<string, unknown>[];
}

async function logsOf(api: Client, reminderId: string) {
  const res = await api.get(`/reminders/logs?reminderId=${reminderId}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return [...res.body.data.items].reverse() as Record<string, unknown>[];
}

/** A plan with a monthly reminder schedule whose obligations fall due on the 25th, from 2028-01-25. */
async function reminded(api: Client, method = 'reminder_only', customer: Record<string, unknown> = {}) {
  const payer = await newCustomer(api, { email: 'ada@example.com', ...customer });
  const plan = await newTrack(api, { customerId: payer.id, amount: 300_000, title: 'Generator, 3 months' });
  const res = await api.post('/collection-schedules', {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'monthly',
    fixed_amount: 100_000,
    start_date: '2028-01-25T09:00:00Z',
    end_date: '2028-03-25T09:00:00Z',
    collection_method: method,
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const obligations = (await api.get(`/collection-schedules/${res.body.data.id}/obligations`)).body.data
    .items;
  return { payer, plan, schedule: res.body.data, first: [...obligations].reverse()[0] };
}

const advanceTo = async (api: Client, to: string) => {
  const res = await api.post('/account/test-clock/advance', { to });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
};

describe('POST /reminders', () => {
  test('queues a reminder for a plan, by e-mail when the customer has an address, written from the template', async () => {
    const { api } = await lagos();
    const customer = await newCustomer(api, { name: 'Adaeze Okafor', email: 'adaeze@example.com' });
    const plan = await newTrack(api, {
      customerId: customer.id,
      amount: 150_000,
      title: 'Fridge, hire purchase',
    });
    const res = await api.post('/reminders', { trackId: plan.id });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const reminder = res.body.data;
    assert.match(reminder.id, /^rem_/);
    assert.equal(reminder.customerId, customer.id);
    assert.equal(reminder.trackId, plan.id);
    assert.equal(reminder.channel, 'email');
    assert.equal(reminder.to, 'adaeze@example.com');
    assert.equal(reminder.status, 'queued');
    assert.equal(reminder.source, 'api');
    assert.equal(reminder.sendAt, NOW);
    assert.equal(reminder.attempts, 0);
    assert.match(reminder.message, /Hello Adaeze Okafor/);
    assert.match(reminder.message, /₦1,500\.00 for Fridge, hire purchase/);
    assert.match(reminder.message, /Test workspace/);
    assert.match(reminder.subject, /Test workspace: ₦1,500\.00 for Fridge, hire purchase/);
  });

  test('defaults to SMS without an e-mail address; amounts follow their currency’s minor unit (1500 JPY is ¥1,500)', async () => {
    const { api } = await newWorkspace(t, { currency: 'JPY', timezone: 'Asia/Tokyo' });
    const customer = await newCustomer(api);
    const plan = await newTrack(api, {
      customerId: customer.id,
      amount: 1_500,
      currency: 'JPY',
      title: 'Bicycle',
    });
    const res = await api.post('/reminders', { customerId: customer.id, trackId: plan.id });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.equal(res.body.data.channel, 'sms');
    assert.equal(res.body.data.to, customer.phone);
    assert.equal(res.body.data.subject, null);
    assert.match(res.body.data.message, /¥1,500 for Bicycle/);
  });

  test('a plan with a due date: the message names that date as it is, on both databases', async () => {
    const { api } = await newWorkspace(t, { timezone: 'Pacific/Kiritimati' });
    const customer = await newCustomer(api, { name: 'Chidi Eze' });
    const plan = await newTrack(api, {
      customerId: customer.id,
      amount: 40_000,
      title: 'Deep freezer',
      dueDate: '2028-03-01',
    });
    const res = await api.post('/reminders', { trackId: plan.id });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    // A calendar date is the plan's own: no zone moves it to the day before or after.
    assert.match(res.body.data.message, /₦400\.00 for Deep freezer is due on 1 Mar 2028\./);
  });

  test('a message given is sent as written, on the channel asked', async () => {
    const { api } = await lagos();
    const customer = await newCustomer(api);
    const res = await api.post('/reminders', {
      customerId: customer.id,
      channel: 'whatsapp',
      message: 'Your fridge is ready for pickup.',
      sendAt: '2028-01-21T10:00:00Z',
    });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.equal(res.body.data.message, 'Your fridge is ready for pickup.');
    assert.equal(res.body.data.channel, 'whatsapp');
    assert.equal(res.body.data.sendAt, '2028-01-21T10:00:00.000Z');
  });

  test('every bad field is a validation_error naming it, and nothing is queued', async () => {
    const { api } = await lagos();
    const customer = await newCustomer(api);
    const other = await newCustomer(api);
    const plan = await newTrack(api, { customerId: customer.id });
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'customerId'],
      [{ customerId: customer.id, channel: 'email' }, 'channel'],
      [{ customerId: customer.id, channel: 'pigeon' }, 'channel'],
      [{ customerId: other.id, trackId: plan.id }, 'customerId'],
      [{ customerId: customer.id, message: 'x'.repeat(2001) }, 'message'],
      [{ customerId: customer.id, message: '   ' }, 'message'],
      [{ customerId: customer.id, sendAt: 'tomorrow' }, 'sendAt'],
      [{ customerId: customer.id, colour: 'red' }, 'colour'],
    ];
    for (const [body, field] of cases) {
      const res = await api.post('/reminders', body);
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'validation_error');
      assert.ok(field in res.body.error.details.fields, `${field} named for ${JSON.stringify(body)}`);
    }
    const missing = await api.post('/reminders', { trackId: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C' });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.details.field, 'trackId');
    assert.deepEqual(await remindersOf(api), []);
  });

  test('reminders:read lists but cannot queue; other workspaces see none', async () => {
    const { api, workspaceId } = await lagos();
    const customer = await newCustomer(api);
    assert.equal((await api.post('/reminders', { customerId: customer.id })).status, 202);
    const reader = await newKey(t, workspaceId, { scopes: ['reminders:read'] });
    assert.equal((await reader.api.get('/reminders')).status, 200);
    assert.equal((await reader.api.get('/reminders/logs')).status, 200);
    const refused = await reader.api.post('/reminders', { customerId: customer.id });
    assert.equal(refused.status, 403);
    const stranger = await lagos();
    assert.deepEqual(await remindersOf(stranger.api), []);
  });
});

describe('POST /reminders/send', () => {
  test('sends the named reminders now, whatever their sendAt; test mode logs them simulated and emits reminder.sent', async () => {
    const { api } = await lagos();
    const customer = await newCustomer(api, { email: 'ada@example.com' });
    const later = (await api.post('/reminders', { customerId: customer.id, sendAt: '2028-02-01T10:00:00Z' }))
      .body.data;
    const res = await api.post('/reminders/send', { reminderIds: [later.id] });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.deepEqual(res.body.data, { queued: 1, reminderIds: [later.id] });
    await t.worker.drain();
    const [sent] = await remindersOf(api);
    assert.equal(sent?.status, 'sent');
    assert.equal(sent?.sentAt, NOW);
    assert.equal(sent?.attempts, 1);
    const logs = await logsOf(api, later.id);
    assert.equal(logs.length, 1);
    assert.equal(logs[0]?.status, 'simulated');
    assert.equal(logs[0]?.provider, 'simulator');
    assert.equal(logs[0]?.to, 'ada@example.com');
    const events = (await api.get('/events?type=reminder.sent')).body.data.items;
    assert.equal(events.length, 1);
    assert.equal(events[0].data.object.id, later.id);
  });

  test('{} sends every queued reminder that is due, not the later ones', async () => {
    const { api } = await lagos();
    const customer = await newCustomer(api);
    const due1 = (await api.post('/reminders', { customerId: customer.id })).body.data;
    const due2 = (await api.post('/reminders', { customerId: customer.id, sendAt: '2028-01-20T11:00:00Z' }))
      .body.data;
    const future = (await api.post('/reminders', { customerId: customer.id, sendAt: '2028-01-22T10:00:00Z' }))
      .body.data;
    const res = await api.post('/reminders/send', {});
    assert.equal(res.status, 202);
    assert.equal(res.body.data.queued, 2);
    assert.deepEqual([...res.body.data.reminderIds].sort(), [due1.id, due2.id].sort());
    await t.worker.drain();
    const statuses = Object.fromEntries((await remindersOf(api)).map((r) => [r.id, r.status]));
    assert.deepEqual(statuses, { [due1.id]: 'sent', [due2.id]: 'sent', [future.id]: 'queued' });
  });

  test('an unknown id is a validation_error naming reminderIds; a reminder already sent is invalid_state; nothing changes', async () => {
    const { api } = await lagos();
    const customer = await newCustomer(api);
    const queued = (await api.post('/reminders', { customerId: customer.id, sendAt: '2028-02-01T10:00:00Z' }))
      .body.data;
    const unknown = await api.post('/reminders/send', { reminderIds: [queued.id, 'rem_nothing'] });
    assert.equal(unknown.status, 422);
    assert.ok('reminderIds' in unknown.body.error.details.fields);
    const sent = (await api.post('/reminders', { customerId: customer.id })).body.data;
    await api.post('/reminders/send', { reminderIds: [sent.id] });
    await t.worker.drain();
    const again = await api.post('/reminders/send', { reminderIds: [queued.id, sent.id] });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'invalid_state');
    assert.equal(again.body.error.details.status, 'sent');
    await t.worker.drain();
    const still = (await remindersOf(api)).find((r) => r.id === queued.id);
    assert.equal(still?.status, 'queued');
    assert.equal((await logsOf(api, sent.id)).length, 1);
    assert.equal((await api.post('/reminders/send', { reminderIds: [] })).status, 422);
  });

  test('live mode without a transport: each try logs a clear failure, retried 3 times with backoff, then failed', async () => {
    const { live, workspaceId } = await lagos();
    const customer = await newCustomer(live, { email: 'ada@example.com' });
    const reminder = (await live.post('/reminders', { customerId: customer.id })).body.data;
    const sweep = () => runSweepsNow(t.ctx, { mode: 'live', workspaceId, now: t.clock.now() });
    try {
      await sweep();
      let row = (await remindersOf(live))[0];
      assert.equal(row?.status, 'queued');
      assert.equal(row?.attempts, 1);
      assert.match(String(row?.lastError), /SMTP_URL/);
      for (const waitMinutes of [1, 5, 30]) {
        t.clock.advance(waitMinutes * MINUTE_MS - 1_000);
        await sweep();
        assert.equal(
          (await logsOf(live, reminder.id)).length,
          [1, 5, 30].indexOf(waitMinutes) + 1,
          'not before its time',
        );
        t.clock.advance(1_000);
        await sweep();
      }
      row = (await remindersOf(live))[0];
      assert.equal(row?.status, 'failed');
      assert.equal(row?.attempts, 4);
      const logs = await logsOf(live, reminder.id);
      assert.deepEqual(
        logs.map((l) => [l.status, l.provider]),
        Array(4).fill(['failed', 'none']),
      );
      assert.match(String(logs[0]?.error), /e-mail is not configured: set SMTP_URL/);
      assert.equal((await live.get('/events?type=reminder.failed')).body.data.items.length, 1);
    } finally {
      t.clock.set(new Date(NOW));
    }
  });
});

describe('automatic reminders', () => {
  test('3 days before, on the due day, 3 and 7 days after: each stage once, at 08:00 in the workspace zone', async () => {
    const { api } = await lagos();
    const { first } = await reminded(api);
    // 2028-01-22 00:00 in Lagos is 2028-01-21T23:00Z: the first stage falls due, in quiet hours.
    await advanceTo(api, '2028-01-21T23:00:00Z');
    let [early] = await remindersOf(api, '&source=schedule');
    assert.equal(early?.status, 'queued');
    assert.equal(early?.stage, '3_days_before');
    assert.equal(early?.obligationId, first.id);
    assert.equal(early?.sendAt, '2028-01-22T07:00:00.000Z');
    assert.match(
      String(early?.message),
      /₦1,000\.00 for Generator, 3 months is due in 3 days, on 25 Jan 2028/,
    );
    await advanceTo(api, '2028-01-22T06:59:00Z');
    assert.equal((await remindersOf(api))[0]?.status, 'queued', 'nothing in quiet hours');
    await advanceTo(api, '2028-01-22T07:00:00Z');
    [early] = await remindersOf(api);
    assert.equal(early?.status, 'sent');
    assert.equal((await logsOf(api, String(early?.id)))[0]?.status, 'simulated');

    for (const [to, stage] of [
      ['2028-01-25T07:00:00Z', 'due_day'],
      ['2028-01-28T07:00:00Z', '3_days_after'],
      ['2028-02-01T07:00:00Z', '7_days_after'],
    ]) {
      await advanceTo(api, to as string);
      const mine = (await remindersOf(api)).filter((r) => r.obligationId === first.id);
      assert.equal(mine.at(-1)?.stage, stage);
      assert.equal(mine.at(-1)?.status, 'sent');
    }
    await advanceTo(api, '2028-02-10T07:00:00Z');
    const stages = (await remindersOf(api)).filter((r) => r.obligationId === first.id).map((r) => r.stage);
    assert.deepEqual(stages, ['3_days_before', 'due_day', '3_days_after', '7_days_after']);
    const overdue = (await remindersOf(api)).find((r) => r.stage === '7_days_after');
    assert.match(String(overdue?.message), /was due on 25 Jan 2028 and is now 7 days late/);
  });

  test('stages passed over while no worker ran: only the latest is sent, the earlier ones are kept as skipped (superseded)', async () => {
    const { api, workspaceId } = await lagos();
    const { first } = await reminded(api);
    // The first sweep in nine days (a test clock's advance steps through each stage instead).
    await runSweepsNow(t.ctx, { mode: 'test', workspaceId, now: new Date('2028-01-29T09:00:00Z') });
    const mine = (await remindersOf(api)).filter((r) => r.obligationId === first.id);
    assert.deepEqual(
      mine.map((r) => [r.stage, r.status, r.skipReason]),
      [
        ['3_days_before', 'skipped', 'superseded'],
        ['due_day', 'skipped', 'superseded'],
        ['3_days_after', 'sent', null],
      ],
    );
  });

  test('skipped when the obligation is paid, the schedule paused, or a collection attempt is processing', async () => {
    const { api } = await lagos();
    const paid = await reminded(api);
    await newPayment(api, paid.plan.id, { amount: 100_000 });
    const paused = await reminded(api);
    assert.equal(
      (await api.patch(`/collection-schedules/${paused.schedule.id}`, { action: 'pause' })).status,
      200,
    );
    const charging = await reminded(api, 'mixed');
    await advanceTo(api, '2028-01-25T00:00:00Z');
    // The attempt of the mixed schedule exists (blocked: no mandate). Held here as a charge a worker started a
    // minute before the reminder's time: a reminder must not cross a collection in flight.
    await t.ctx.db
      .updateTable('attempts')
      .set({ status: 'processing', attempted_at: '2028-01-25T06:59:00.000Z' })
      .where('obligation_id', '=', charging.first.id)
      .execute();
    await advanceTo(api, '2028-01-25T07:00:00Z');
    const byObligation = (id: string) =>
      remindersOf(api).then((all) =>
        all.filter((r) => r.obligationId === id).map((r) => [r.stage, r.status, r.skipReason]),
      );
    // Paid before its first stage: that stage is skipped, and the obligation gets no later one.
    assert.deepEqual(await byObligation(paid.first.id), [['3_days_before', 'skipped', 'obligation_paid']]);
    assert.deepEqual((await byObligation(paused.first.id)).at(-1), ['due_day', 'skipped', 'schedule_paused']);
    assert.deepEqual((await byObligation(charging.first.id)).at(-1), [
      'due_day',
      'skipped',
      'attempt_processing',
    ]);
  });

  test('two workers sweeping at once send each stage once', async () => {
    const { api, workspaceId } = await lagos();
    const { first } = await reminded(api);
    const scope = { mode: 'test' as const, workspaceId, now: new Date('2028-01-22T07:00:00Z') };
    await Promise.all([runSweepsNow(t.ctx, scope), runSweepsNow(t.ctx, scope), runSweepsNow(t.ctx, scope)]);
    const mine = (await remindersOf(api)).filter((r) => r.obligationId === first.id);
    assert.equal(mine.length, 1);
    assert.equal(mine[0]?.status, 'sent');
    assert.equal((await logsOf(api, String(mine[0]?.id))).length, 1);
  });

  test('manual and auto_debit schedules get no automatic reminders', async () => {
    const { api } = await lagos();
    await reminded(api, 'manual');
    await reminded(api, 'auto_debit');
    await advanceTo(api, '2028-01-26T09:00:00Z');
    assert.deepEqual(await remindersOf(api, '&source=schedule'), []);
  });
});
