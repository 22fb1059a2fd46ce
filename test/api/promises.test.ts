import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { approvedMandate, threeMonthlyDebits } from '../helpers/collections.js';
import { consoleGet, consolePerson, consolePost } from '../helpers/console.js';
import { newCustomer, newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

// Promises to pay: on a plan or one obligation, kept as soon as the money comes, broken at the end of their date
// (workspace zone) with one reminder; while open, automatic reminders are skipped and attempts blocked.

const NOW = '2028-01-20T12:00:00.000Z';

type Row = Record<string, any>;

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const lagos = () => newWorkspace(t, { timezone: 'Africa/Lagos' });

async function promise(api: Client, body: Record<string, unknown>) {
  const res = await api.post('/promises', body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data as Row;
}

const advanceTo = async (api: Client, to: string) => {
  const res = await api.post('/account/test-clock/advance', { to });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
};

async function listOf(api: Client, path: string) {
  const res = await api.get(path);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return [...res.body.data.items].reverse() as Row[];
}

const eventsOf = async (api: Client, type: string) => listOf(api, `/events?type=${type}&limit=100`);

/** A plan of ₦3,000.00 with a monthly reminder schedule of ₦1,000.00 due on the 25th, from 25 Jan 2028. */
async function reminded(api: Client) {
  const payer = await newCustomer(api, { name: 'Adaeze Okafor', email: 'ada@example.com' });
  const plan = await newTrack(api, { customerId: payer.id, amount: 300_000, title: 'Generator, 3 months' });
  const res = await api.post('/collection-schedules', {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'monthly',
    fixed_amount: 100_000,
    start_date: '2028-01-25T09:00:00Z',
    end_date: '2028-03-25T09:00:00Z',
    collection_method: 'reminder_only',
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const obligations = await listOf(api, `/collection-schedules/${res.body.data.id}/obligations`);
  return {
    payer,
    plan,
    schedule: res.body.data,
    first: obligations[0] as Row,
    second: obligations[1] as Row,
  };
}

describe('POST /promises, GET, list, cancel', () => {
  test('a promise on a plan: made by the business, read, listed, cancelled once, each with its event', async () => {
    const { api } = await lagos();
    const plan = await newTrack(api, { amount: 50_000 });
    const made = await promise(api, {
      trackId: plan.id,
      amount: 20_000,
      date: '2028-01-28',
      note: '  Salary comes on Friday.  ',
    });
    assert.match(made.id, /^prm_/);
    assert.deepEqual(
      { ...made, id: undefined },
      {
        id: undefined,
        trackId: plan.id,
        obligationId: null,
        amount: 20_000,
        currency: 'NGN',
        date: '2028-01-28',
        note: 'Salary comes on Friday.',
        source: 'business',
        status: 'open',
        createdAt: NOW,
        resolvedAt: null,
      },
    );
    assert.deepEqual((await api.get(`/promises/${made.id}`)).body.data, made);
    assert.deepEqual(
      (await listOf(api, `/promises?trackId=${plan.id}`)).map((p) => p.id),
      [made.id],
    );
    assert.deepEqual(await listOf(api, '/promises?status=kept'), []);

    const cancelled = await api.post(`/promises/${made.id}/cancel`);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.data.status, 'cancelled');
    assert.equal(cancelled.body.data.resolvedAt, NOW);
    const again = await api.post(`/promises/${made.id}/cancel`);
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'invalid_state');
    assert.equal((await api.post('/promises/prm_nothing/cancel')).status, 404);
    assert.equal((await api.get('/promises/prm_nothing')).status, 404);

    const created = await eventsOf(api, 'promise.created');
    assert.equal(created.length, 1);
    assert.equal(created[0]?.data.object.id, made.id);
    assert.equal((await eventsOf(api, 'promise.cancelled')).length, 1);
    // Cancelled, the plan may have a new one.
    await promise(api, { trackId: plan.id, amount: 50_000, date: '2028-01-20' });
  });

  test('every bad input is refused naming its field, and nothing is made', async () => {
    const { api } = await lagos();
    const plan = await newTrack(api, { amount: 50_000 });
    const other = await newTrack(api, { amount: 50_000 });
    const { first, plan: scheduled } = await reminded(api);
    const refused: [Record<string, unknown>, number, string, string][] = [
      [{ trackId: plan.id, amount: 0, date: '2028-01-28' }, 422, 'validation_error', 'amount'],
      [{ trackId: plan.id, amount: 1.5, date: '2028-01-28' }, 422, 'validation_error', 'amount'],
      [{ trackId: plan.id, amount: 50_001, date: '2028-01-28' }, 422, 'validation_error', 'amount'],
      [{ trackId: plan.id, amount: 100, date: '2028-01-19' }, 422, 'validation_error', 'date'],
      [{ trackId: plan.id, amount: 100, date: '2028-02-30' }, 422, 'validation_error', 'date'],
      [{ trackId: plan.id, amount: 100, date: '28/01/2028' }, 422, 'validation_error', 'date'],
      [{ trackId: plan.id, amount: 100, date: '2029-01-21' }, 422, 'validation_error', 'date'],
      [
        { trackId: plan.id, amount: 100, date: '2028-01-28', note: 'x'.repeat(501) },
        422,
        'validation_error',
        'note',
      ],
      [{ trackId: 'trk_nothing', amount: 100, date: '2028-01-28' }, 404, 'not_found', 'trackId'],
      [
        { trackId: plan.id, obligationId: 'obl_nothing', amount: 100, date: '2028-01-28' },
        404,
        'not_found',
        'obligationId',
      ],
      [
        { trackId: other.id, obligationId: first.id, amount: 100, date: '2028-01-28' },
        404,
        'not_found',
        'obligationId',
      ],
      [
        { trackId: scheduled.id, obligationId: first.id, amount: 100_001, date: '2028-01-28' },
        422,
        'validation_error',
        'amount',
      ],
    ];
    for (const [body, status, code, field] of refused) {
      const res = await api.post('/promises', body);
      assert.equal(res.status, status, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, code);
      if (status === 422) assert.ok(JSON.stringify(res.body.error.details).includes(field), field);
      else assert.equal(res.body.error.details.field, field);
    }
    // The last day allowed: 366 days ahead in the workspace's zone.
    await promise(api, { trackId: plan.id, amount: 100, date: '2029-01-20' });

    const paid = await newTrack(api, { amount: 1_000 });
    await newPayment(api, paid.id, { amount: 1_000 });
    const completed = await api.post('/promises', { trackId: paid.id, amount: 100, date: '2028-01-28' });
    assert.equal(completed.status, 409);
    assert.equal(completed.body.error.code, 'invalid_state');
    assert.equal((await listOf(api, `/promises?trackId=${paid.id}`)).length, 0);
    assert.equal((await eventsOf(api, 'promise.created')).length, 1);
  });

  test('a second open promise on a plan is invalid_state naming the open one; two at once: one wins', async () => {
    const { api } = await lagos();
    const plan = await newTrack(api, { amount: 50_000 });
    const first = await promise(api, { trackId: plan.id, amount: 10_000, date: '2028-01-28' });
    const second = await api.post('/promises', { trackId: plan.id, amount: 5_000, date: '2028-01-29' });
    assert.equal(second.status, 409);
    assert.equal(second.body.error.code, 'invalid_state');
    assert.equal(second.body.error.details.promiseId, first.id);

    const racing = await newTrack(api, { amount: 50_000 });
    const answers = await Promise.all(
      [10_000, 20_000].map((amount) =>
        api.post('/promises', { trackId: racing.id, amount, date: '2028-01-28' }),
      ),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409]);
    const won = answers.find((a) => a.status === 201)?.body.data;
    const lost = answers.find((a) => a.status === 409)?.body.error;
    assert.equal(lost.code, 'invalid_state');
    assert.equal(lost.details.promiseId, won.id);
    assert.deepEqual(
      (await listOf(api, `/promises?trackId=${racing.id}`)).map((p) => p.id),
      [won.id],
    );
  });

  test('scopes: tracks:read reads promises, tracks:write makes them', async () => {
    const { api, workspaceId } = await lagos();
    const plan = await newTrack(api, { amount: 50_000 });
    const made = await promise(api, { trackId: plan.id, amount: 10_000, date: '2028-01-28' });
    const reader = (await newKey(t, workspaceId, { scopes: ['tracks:read'] })).api;
    assert.equal((await reader.get(`/promises/${made.id}`)).status, 200);
    assert.equal((await reader.get('/promises')).status, 200);
    const refused = await reader.post(`/promises/${made.id}/cancel`);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.details.required_scope, 'tracks:write');
    const other = (await newKey(t, workspaceId, { scopes: ['payments:write'] })).api;
    assert.equal((await other.get('/promises')).status, 403);
  });
});

describe('a promise kept', () => {
  test('paid in full before its date: kept at once (promise.kept); a part payment alone keeps nothing', async () => {
    const { api } = await lagos();
    const plan = await newTrack(api, { amount: 50_000 });
    await newPayment(api, plan.id, { amount: 5_000 });
    const made = await promise(api, { trackId: plan.id, amount: 20_000, date: '2028-01-28' });
    await newPayment(api, plan.id, { amount: 12_000 });
    await t.worker.drain();
    assert.equal((await api.get(`/promises/${made.id}`)).body.data.status, 'open', 'only 120.00 of 200.00');
    await advanceTo(api, '2028-01-20T12:01:00Z');
    await newPayment(api, plan.id, { amount: 8_000 });
    await t.worker.drain();
    const kept = (await api.get(`/promises/${made.id}`)).body.data;
    assert.equal(kept.status, 'kept');
    assert.equal(kept.resolvedAt, '2028-01-20T12:01:00.000Z');
    const events = await eventsOf(api, 'promise.kept');
    assert.equal(events.length, 1);
    assert.equal(events[0]?.data.object.id, made.id);
    // Its date passing changes nothing more.
    await advanceTo(api, '2028-02-01T00:00:00Z');
    assert.equal((await api.get(`/promises/${made.id}`)).body.data.status, 'kept');
    assert.equal((await eventsOf(api, 'promise.broken')).length, 0);
  });

  test('a payment reversed before it is looked at does not count: the promise breaks at due_at', async () => {
    const { api } = await lagos();
    const plan = await newTrack(api, { amount: 50_000 });
    const made = await promise(api, { trackId: plan.id, amount: 20_000, date: '2028-01-21' });
    const payment = await newPayment(api, plan.id, { amount: 20_000 });
    const reversed = await api.post(`/payments/${payment.id}/reverse`, { reason: 'bounced' });
    assert.equal(reversed.status, 200, JSON.stringify(reversed.body));
    await t.worker.drain();
    assert.equal((await api.get(`/promises/${made.id}`)).body.data.status, 'open');
    // 2028-01-22 00:00 in Lagos is 2028-01-21T23:00Z.
    await advanceTo(api, '2028-01-21T22:59:59Z');
    assert.equal((await api.get(`/promises/${made.id}`)).body.data.status, 'open');
    await advanceTo(api, '2028-01-21T23:00:00Z');
    const broken = (await api.get(`/promises/${made.id}`)).body.data;
    assert.equal(broken.status, 'broken');
    assert.equal(broken.resolvedAt, '2028-01-21T23:00:00.000Z');
  });

  test('money recorded by the end of the date but not yet looked at keeps it at due_at, not broken', async () => {
    const { api } = await lagos();
    const plan = await newTrack(api, { amount: 50_000 });
    const made = await promise(api, { trackId: plan.id, amount: 50_000, date: '2028-01-21' });
    await newPayment(api, plan.id, { amount: 50_000 });
    await advanceTo(api, '2028-01-21T23:00:00Z');
    assert.equal((await api.get(`/promises/${made.id}`)).body.data.status, 'kept');
    assert.equal((await eventsOf(api, 'promise.broken')).length, 0);
  });
});

describe('a promise broken', () => {
  test('not paid by the end of its date: broken at that instant, one reminder says so, later stages still come', async () => {
    const { api } = await lagos();
    const { plan, first } = await reminded(api);
    const made = await promise(api, {
      trackId: plan.id,
      amount: 100_000,
      date: '2028-01-26',
      note: 'Will pay after the market day',
    });
    // A reminder asked for while it is open mentions it.
    const asked = await api.post('/reminders', { trackId: plan.id, channel: 'email' });
    assert.equal(asked.status, 202, JSON.stringify(asked.body));
    assert.match(asked.body.data.message, /as agreed, ₦1,000\.00 by Wed 26 Jan\./);

    // 3 days before (22 Jan) and the due day (25 Jan): kept back while the promise is open.
    await advanceTo(api, '2028-01-26T22:59:59Z');
    let automatic = await listOf(api, '/reminders?source=schedule&limit=100');
    assert.deepEqual(
      automatic.map((r) => [r.obligationId, r.stage, r.status, r.skipReason]),
      [
        [first.id, '3_days_before', 'skipped', 'promise_open'],
        [first.id, 'due_day', 'skipped', 'promise_open'],
      ],
    );
    assert.equal((await api.get(`/promises/${made.id}`)).body.data.status, 'open');

    // 27 Jan 00:00 in Lagos.
    const moved = await advanceTo(api, '2028-01-26T23:00:00Z');
    assert.equal(moved.ran['promises.fall_due'], 1);
    const broken = (await api.get(`/promises/${made.id}`)).body.data;
    assert.equal(broken.status, 'broken');
    assert.equal(broken.resolvedAt, '2028-01-26T23:00:00.000Z');
    const events = await eventsOf(api, 'promise.broken');
    assert.equal(events.length, 1);
    assert.equal(events[0]?.data.object.id, made.id);

    automatic = await listOf(api, '/reminders?source=schedule&limit=100');
    const forPromise = automatic.filter((r) => r.stage === null);
    assert.equal(forPromise.length, 1, 'one reminder for the broken promise, not a burst');
    assert.equal(forPromise[0]?.status, 'queued', 'quiet hours: it goes at 08:00');
    assert.equal(forPromise[0]?.sendAt, '2028-01-27T07:00:00.000Z');
    assert.equal(
      forPromise[0]?.message,
      'Test workspace: Hello Adaeze Okafor, your promise to pay ₦1,000.00 by Wed 26 Jan was not kept. ₦3,000.00 for Generator, 3 months is owed now, ₦1,000.00 of it due now. Please pay as soon as you can, or tell us if something is wrong.',
    );
    await advanceTo(api, '2028-01-27T07:00:00Z');
    automatic = await listOf(api, '/reminders?source=schedule&limit=100');
    assert.equal(automatic.find((r) => r.id === forPromise[0]?.id)?.status, 'sent');
    assert.deepEqual(
      automatic.filter((r) => r.stage !== null).map((r) => [r.stage, r.status]),
      [
        ['3_days_before', 'skipped'],
        ['due_day', 'skipped'],
      ],
      'the skipped stages are not sent late',
    );

    // The schedule's later stages come as they would have.
    await advanceTo(api, '2028-02-01T07:00:00Z');
    automatic = await listOf(api, '/reminders?source=schedule&limit=100');
    assert.deepEqual(
      automatic
        .filter((r) => r.obligationId === first.id && r.stage !== null)
        .map((r) => [r.stage, r.status]),
      [
        ['3_days_before', 'skipped'],
        ['due_day', 'skipped'],
        ['3_days_after', 'sent'],
        ['7_days_after', 'sent'],
      ],
    );
    assert.equal(automatic.filter((r) => r.stage === null).length, 1);
  });

  test('a promise on an obligation of an auto_debit schedule: no charge while open; broken, the attempt charges', async () => {
    const { api } = await newWorkspace(t);
    const { plan, schedule } = await threeMonthlyDebits(api, 30_000);
    await approvedMandate(t, api, schedule.id);
    const [first, second] = await listOf(api, `/collection-schedules/${schedule.id}/obligations`);
    const made = await promise(api, {
      trackId: plan.id,
      obligationId: first?.id,
      amount: 30_000,
      date: '2028-01-27',
    });
    assert.equal(made.obligationId, first?.id);

    await advanceTo(api, '2028-01-25T00:00:00Z');
    let attempts = await listOf(api, `/collection-attempts?schedule_id=${schedule.id}&limit=100`);
    assert.equal(attempts.length, 1);
    assert.equal(attempts[0]?.status, 'blocked');
    assert.equal(attempts[0]?.blocked_reason, 'promise_open');
    await advanceTo(api, '2028-01-27T23:59:59Z');
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 90_000, 'nothing charged');

    // 28 Jan 00:00 UTC: broken, and the blocked attempt runs in the same advance.
    const moved = await advanceTo(api, '2028-01-28T00:00:00Z');
    assert.equal(moved.ran['promises.fall_due'], 1);
    assert.equal((await api.get(`/promises/${made.id}`)).body.data.status, 'broken');
    attempts = await listOf(api, `/collection-attempts?schedule_id=${schedule.id}&limit=100`);
    assert.equal(attempts.length, 1);
    assert.equal(attempts[0]?.status, 'succeeded');
    assert.equal(attempts[0]?.blocked_reason, null);
    assert.equal(attempts[0]?.attempted_at, '2028-01-28T00:00:00.000Z');
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 60_000);
    const reminders = await listOf(api, '/reminders?source=schedule&limit=100');
    assert.equal(reminders.length, 1);
    assert.equal(reminders[0]?.obligationId, first?.id);
    assert.match(reminders[0]?.message, /your promise to pay ₦300\.00 by Thu 27 Jan was not kept/);
    // The debit paid what the promise covered in the same advance: the reminder is not sent.
    await t.worker.drain();
    const [reminder] = await listOf(api, '/reminders?source=schedule&limit=100');
    assert.deepEqual([reminder?.status, reminder?.skipReason], ['skipped', 'obligation_paid']);

    // The next obligation is not covered: charged on its date.
    await advanceTo(api, '2028-02-25T00:00:00Z');
    attempts = await listOf(api, `/collection-attempts?schedule_id=${schedule.id}&limit=100`);
    assert.equal(attempts.find((a) => a.obligation_id === second?.id)?.status, 'succeeded');
  });
});

describe('promises made on the customer page and in the console', () => {
  const openPage = (path: string, payload?: string) =>
    t.app.inject({
      method: payload === undefined ? 'GET' : 'POST',
      url: path,
      ...(payload === undefined
        ? {}
        : { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload }),
    });

  test('a payer promises on their page: source payer, shown on the page; a bad amount is refused in words', async () => {
    const { api } = await lagos();
    const customer = await newCustomer(api, { name: 'Chioma Eze' });
    const plan = await newTrack(api, { customerId: customer.id, title: 'Deep freezer', amount: 90_000 });
    const other = await newTrack(api, { title: 'Another customer’s plan', amount: 90_000 });
    const made = await api.post(`/customers/${customer.id}/portal-links`, {});
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const path = new URL(made.body.data.url).pathname;

    const page = await openPage(path);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<summary>Promise to pay<\/summary>/);
    assert.match(page.body, /<label for="promise-[^"]+-amount">Amount \(NGN\)<\/label>/);

    const tooMuch = await openPage(`${path}/promise`, `plan=${plan.id}&amount=901&date=2028-01-25`);
    assert.equal(tooMuch.statusCode, 422);
    assert.match(tooMuch.body, /Your promise was not recorded: promise at most what you owe, ₦900\.00\./);
    const notMine = await openPage(`${path}/promise`, `plan=${other.id}&amount=100&date=2028-01-25`);
    assert.equal(notMine.statusCode, 404);
    assert.deepEqual(await listOf(api, '/promises'), []);

    const promised = await openPage(`${path}/promise`, `plan=${plan.id}&amount=300&date=2028-01-25`);
    assert.equal(promised.statusCode, 303, promised.body);
    assert.equal(promised.headers.location, `${path}?notice=promise_made`);
    const [mine] = await listOf(api, '/promises');
    assert.equal(mine?.source, 'payer');
    assert.equal(mine?.amount, 30_000);
    assert.equal(mine?.date, '2028-01-25');
    assert.equal(mine?.trackId, plan.id);
    const after = await openPage(`${path}?notice=promise_made`);
    assert.match(after.body, /Thank you: your promise to pay is recorded\./);
    assert.match(after.body, /You promised to pay <strong>₦300\.00<\/strong> by 25 Jan 2028\./);
    assert.doesNotMatch(after.body, /<summary>Promise to pay<\/summary>/);
    // The page's actor may make a promise and nothing else new: cancelling is the business's.
    const audit = (await api.get(`/audit-log?record_id=${mine?.id}`)).body.data.items;
    assert.equal(audit[0]?.actor.type, 'payer');
  });

  test("the console shows a plan's promises; a collector records one and cancels it; a viewer cannot", async () => {
    const collector = await consolePerson(t, 'collector', await lagos());
    const { api } = collector.workspace;
    const plan = await newTrack(api, { amount: 50_000, title: 'Fridge' });
    const href = `/console/plans/${plan.id}`;
    let page = await consoleGet(t, collector, href);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h2>Promises to pay<\/h2>/);
    assert.match(page.body, /No promises to pay\./);
    assert.match(page.body, /<summary>Record a promise<\/summary>/);

    const refused = await consolePost(t, collector, `${href}/promises`, {
      promise_amount: '600',
      promise_date: '2028-01-25',
    });
    assert.equal(refused.statusCode, 422);
    assert.match(refused.body, /must be at most the plan(&#39;|&#x27;|')s balance/);

    const recorded = await consolePost(t, collector, `${href}/promises`, {
      promise_amount: '200',
      promise_date: '2028-01-25',
      promise_note: 'Said on the phone',
    });
    assert.equal(recorded.statusCode, 303, recorded.body);
    page = await consoleGet(t, collector, `${href}?done=promise_recorded`);
    assert.match(page.body, /The promise to pay was recorded/);
    assert.match(page.body, /₦200\.00/);
    assert.match(page.body, /Said on the phone/);
    assert.match(page.body, /Recorded by you/);
    assert.doesNotMatch(page.body, /<summary>Record a promise<\/summary>/, 'one open promise at a time');
    const [open] = await listOf(api, `/promises?trackId=${plan.id}`);
    assert.equal(open?.source, 'business');

    const viewer = await consolePerson(t, 'viewer', collector.workspace);
    const notAllowed = await consolePost(t, viewer, `${href}/promises/${open?.id}/cancel`, {});
    assert.equal(notAllowed.statusCode, 403);
    assert.doesNotMatch(
      (await consoleGet(t, viewer, href)).body,
      /<button type="submit" class="secondary">Cancel<\/button>/,
    );

    const cancelled = await consolePost(t, collector, `${href}/promises/${open?.id}/cancel`, {});
    assert.equal(cancelled.statusCode, 303, cancelled.body);
    assert.equal((await api.get(`/promises/${open?.id}`)).body.data.status, 'cancelled');
  });
});
