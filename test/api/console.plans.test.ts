import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { consoleGet, consolePerson, consolePost } from '../helpers/console.js';
import { newCustomer, newPayment, newTrack } from '../helpers/factories.js';

// The console's plans: the list and its filters, a plan's page with its obligations, the form that creates a plan
// with its schedule, and the schedule actions (re-sync and cancel shown first, done only when confirmed), all
// through the API as the signed-in person, whose role decides what they see and may do.

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const DAY = 86_400_000;
/** A calendar date (UTC, the test workspaces' zone) `days` from the app's now. */
const dayFrom = (days: number) => new Date(t.clock.now().getTime() + days * DAY).toISOString().slice(0, 10);
const instantFrom = (days: number) => new Date(t.clock.now().getTime() + days * DAY).toISOString();

async function schedule(api: Client, body: Record<string, unknown>) {
  const res = await api.post('/collection-schedules', {
    target_type: 'payment_plan',
    collection_method: 'manual',
    ...body,
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

async function obligationsOf(api: Client, trackId: string) {
  const res = await api.get(`/obligations?track_id=${trackId}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.items as { amount: number; amount_paid: number; status: string; due_date: string }[];
}

/** The value of a hidden field of a page. */
const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];

describe('console plans', () => {
  test('the list shows every plan, and filters overdue, active, completed and by customer', async () => {
    const owner = await consolePerson(t, 'owner');
    const { api } = owner.workspace;
    const ada = await newCustomer(api, { name: 'Ada Obi' });
    const late = await newTrack(api, { customerId: ada.id, title: 'Late fridge', amount: 50_000 });
    await schedule(api, {
      target_id: late.id,
      frequency: 'one_time',
      fixed_amount: 50_000,
      start_date: instantFrom(-10),
    });
    const onTime = await newTrack(api, { title: 'On-time cooker', amount: 30_000 });
    const done = await newTrack(api, { customerId: ada.id, title: 'Paid-off phone', amount: 10_000 });
    await newPayment(api, done.id, { amount: 10_000 });

    const all = await consoleGet(t, owner, '/console/plans');
    assert.equal(all.statusCode, 200, all.body);
    for (const title of ['Late fridge', 'On-time cooker', 'Paid-off phone'])
      assert.match(all.body, new RegExp(title));
    assert.match(all.body, /Ada Obi/);
    assert.match(all.body, new RegExp(`href="/console/plans/${late.id}"`));
    assert.match(all.body, new RegExp(`href="/console/customers/${ada.id}"`));
    assert.match(all.body, /href="\/console\/plans\/new"/);

    const shown = async (query: string) => {
      const res = await consoleGet(t, owner, `/console/plans?${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return ['Late fridge', 'On-time cooker', 'Paid-off phone'].filter((title) => res.body.includes(title));
    };
    assert.deepEqual(await shown('show=overdue'), ['Late fridge']);
    assert.deepEqual(await shown('show=active'), ['Late fridge', 'On-time cooker']);
    assert.deepEqual(await shown('show=completed'), ['Paid-off phone']);
    assert.deepEqual(await shown(`customer_id=${ada.id}`), ['Late fridge', 'Paid-off phone']);
    assert.deepEqual(await shown(`customer_id=${ada.id}&show=completed`), ['Paid-off phone']);
    assert.deepEqual(await shown(`customer_id=${onTime.customerId}&show=overdue`), []);

    const viewer = await consolePerson(t, 'viewer', owner.workspace);
    const seen = await consoleGet(t, viewer, '/console/plans');
    assert.equal(seen.statusCode, 200);
    assert.match(seen.body, /Late fridge/);
    assert.doesNotMatch(seen.body, /New plan/);
  });

  test("a plan's page shows its obligations paid, partly paid, pending and overdue, and its payments", async () => {
    const owner = await consolePerson(t, 'owner');
    const { api } = owner.workspace;
    const plan = await newTrack(api, { title: 'Generator', amount: 120_000 });
    await schedule(api, {
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 30_000,
      start_date: instantFrom(3),
      end_date: instantFrom(100),
    });
    const payment = await newPayment(api, plan.id, { amount: 40_000, reference: 'TRF-77' });
    const late = await newTrack(api, { title: 'Cooker', amount: 20_000 });
    await schedule(api, {
      target_id: late.id,
      frequency: 'one_time',
      fixed_amount: 20_000,
      start_date: instantFrom(-5),
    });

    const page = await consoleGet(t, owner, `/console/plans/${plan.id}`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<h1>Generator<\/h1>/);
    assert.match(page.body, /₦1,200\.00/);
    assert.match(page.body, /Balance<\/div><div class="value">₦800\.00/);
    assert.match(page.body, /<span class="status good">paid<\/span>/);
    assert.match(page.body, /<span class="status[^"]*">partially paid<\/span>/);
    assert.match(page.body, /<span class="status wait">pending<\/span>/);
    assert.doesNotMatch(page.body, />overdue</);
    assert.match(page.body, /Obligations, earliest due first/);
    assert.match(page.body, new RegExp(`href="/console/payments/${payment.id}"`));
    assert.match(page.body, /TRF-77/);
    assert.match(page.body, new RegExp(`href="/console/payments/new\\?track_id=${plan.id}"`));
    assert.match(page.body, /Monthly/);
    assert.match(page.body, /aria-label="Pause: schedule 1"/);

    const overdue = await consoleGet(t, owner, `/console/plans/${late.id}`);
    assert.equal(overdue.statusCode, 200);
    assert.match(overdue.body, /<span class="status bad">overdue<\/span>/);
    assert.match(overdue.body, /Overdue now<\/div><div class="value">₦200\.00/);

    const missing = await consoleGet(t, owner, '/console/plans/trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C');
    assert.equal(missing.statusCode, 404);
    assert.match(missing.body, /Back to the plans/);
  });

  test('the form creates a plan with its schedule; a double submit creates them once', async () => {
    const owner = await consolePerson(t, 'owner');
    const { api } = owner.workspace;
    const ada = await newCustomer(api, { name: 'Ada Obi' });
    const form = await consoleGet(t, owner, `/console/plans/new?customer_id=${ada.id}`);
    assert.equal(form.statusCode, 200, form.body);
    assert.match(form.body, /Customer: <a href="\/console\/customers\/[^"]+">Ada Obi<\/a>/);
    assert.match(form.body, /name="currency"[^>]*value="NGN"/);

    const fields = {
      idempotency_key: randomUUID(),
      customer_id: ada.id,
      customer_fixed: 'yes',
      title: 'Fridge, 4 months',
      amount: '1,200.00',
      currency: 'NGN',
      due_date: '',
      frequency: 'installment_sequence',
      installments: '4',
      instalment_amount: '',
      start_date: dayFrom(5),
      end_date: '',
      interval: '',
      collection_method: 'manual',
    };
    const made = await consolePost(t, owner, '/console/plans', fields);
    assert.equal(made.statusCode, 303, made.body);
    const location = String(made.headers.location);
    const id = /^\/console\/plans\/(trk_\w+)\?done=created_with_schedule$/.exec(location)?.[1];
    assert.ok(id, location);

    const plan = (await api.get(`/tracks/${id}`)).body.data;
    assert.equal(plan.customerId, ada.id);
    assert.equal(plan.title, 'Fridge, 4 months');
    assert.equal(plan.amount, 120_000);
    assert.equal(plan.currency, 'NGN');
    assert.equal(plan.installments, 4);
    const schedules = (await api.get(`/collection-schedules?target_id=${id}`)).body.data.items;
    assert.equal(schedules.length, 1);
    assert.equal(schedules[0].frequency, 'installment_sequence');
    assert.equal(schedules[0].fixed_amount, 30_000);
    assert.equal(schedules[0].collection_method, 'manual');
    const obligations = await obligationsOf(api, id);
    assert.deepEqual(
      obligations.map((o) => o.amount),
      [30_000, 30_000, 30_000, 30_000],
    );
    assert.equal(obligations[0]?.due_date, dayFrom(5));

    const again = await consolePost(t, owner, '/console/plans', fields);
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, location);
    assert.equal((await api.get(`/tracks?customerId=${ada.id}`)).body.data.items.length, 1);
    assert.equal((await api.get(`/collection-schedules?target_id=${id}`)).body.data.items.length, 1);

    const shown = await consoleGet(t, owner, location);
    assert.match(shown.body, /The plan and its collection schedule were created\./);

    // Without a schedule, a plan alone; the customer chosen from the list.
    const picked = await consoleGet(t, owner, '/console/plans/new');
    assert.match(picked.body, new RegExp(`<option value="${ada.id}">Ada Obi</option>`));
    const alone = await consolePost(t, owner, '/console/plans', {
      ...fields,
      idempotency_key: randomUUID(),
      customer_fixed: '',
      title: 'Phone',
      amount: '50',
      frequency: '',
      installments: '',
    });
    assert.equal(alone.statusCode, 303, alone.body);
    assert.match(String(alone.headers.location), /\?done=created$/);
    const phone = (await api.get(`/tracks?customerId=${ada.id}`)).body.data.items[0];
    assert.equal(phone.amount, 5_000);
    assert.equal((await api.get(`/collection-schedules?target_id=${phone.id}`)).body.data.items.length, 0);
  });

  test('a schedule the API refuses leaves the plan made, shown with the refusal and the schedule to correct', async () => {
    const owner = await consolePerson(t, 'owner');
    const { api } = owner.workspace;
    const ada = await newCustomer(api);
    const refused = await consolePost(t, owner, '/console/plans', {
      idempotency_key: randomUUID(),
      customer_id: ada.id,
      title: 'Cooker',
      amount: '900',
      currency: 'NGN',
      frequency: 'custom',
      installments: '3',
      start_date: dayFrom(2),
      collection_method: 'manual',
    });
    assert.equal(refused.statusCode, 422, refused.body);
    assert.match(refused.body, /was created, but its collection schedule was refused/);
    const plans = (await api.get(`/tracks?customerId=${ada.id}`)).body.data.items;
    assert.equal(plans.length, 1);
    const plan = plans[0];
    assert.match(refused.body, new RegExp(`href="/console/plans/${plan.id}"`));
    assert.match(refused.body, /Interval: is required for frequency custom/);
    assert.match(refused.body, /id="f-interval-error"/);
    assert.match(refused.body, /<option value="custom" selected>/);
    assert.equal((await api.get(`/collection-schedules?target_id=${plan.id}`)).body.data.items.length, 0);

    const added = await consolePost(t, owner, `/console/plans/${plan.id}/schedules`, {
      idempotency_key: randomUUID(),
      frequency: 'custom',
      interval: '10',
      installments: '3',
      start_date: dayFrom(2),
      collection_method: 'manual',
    });
    assert.equal(added.statusCode, 303, added.body);
    assert.equal(added.headers.location, `/console/plans/${plan.id}?done=schedule_added`);
    const obligations = await obligationsOf(api, plan.id);
    assert.deepEqual(
      obligations.map((o) => o.amount),
      [30_000, 30_000, 30_000],
    );
    assert.deepEqual(
      obligations.map((o) => o.due_date),
      [dayFrom(2), dayFrom(12), dayFrom(22)],
    );
  });

  test('bad input in the plan form is a field error and creates nothing', async () => {
    const owner = await consolePerson(t, 'owner');
    const { api } = owner.workspace;
    const ada = await newCustomer(api);
    const base = {
      idempotency_key: randomUUID(),
      customer_id: ada.id,
      title: 'Fridge',
      amount: '100',
      currency: 'NGN',
      frequency: '',
    };
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ amount: '12.345' }, 'amount', /NGN amounts have at most 2 digits after the point/],
      [{ amount: 'abc' }, 'amount', /Enter the amount in figures/],
      [{ amount: '-5' }, 'amount', /more than zero/],
      [{ title: '  ' }, 'title', /Enter a title/],
      [{ currency: 'XX' }, 'currency', /currency code/],
      [{ customer_id: '' }, 'customer_id', /Choose a customer/],
      [{ frequency: 'monthly', start_date: dayFrom(1) }, 'instalment_amount', /the number of instalments/],
      [{ frequency: 'monthly', start_date: 'soon', installments: '2' }, 'start_date', /first due date/],
      [
        { frequency: 'monthly', start_date: dayFrom(1), instalment_amount: '1.001' },
        'instalment_amount',
        /2 digits/,
      ],
      [{ customer_id: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B' }, 'customer_id', /customer/i],
    ];
    for (const [change, name, message] of cases) {
      const res = await consolePost(t, owner, '/console/plans', { ...base, ...change });
      assert.ok(
        res.statusCode === 422 || res.statusCode === 404,
        `${JSON.stringify(change)}: ${res.statusCode}`,
      );
      const error = new RegExp(`id="f-${name}-error">([^<]*)<`).exec(res.body)?.[1] ?? '';
      assert.match(error, message, `${JSON.stringify(change)}: ${error}`);
      assert.match(res.body, /class="problem" role="alert"/);
    }
    assert.equal((await api.get('/tracks')).body.data.items.length, 0);
  });

  test('pause, resume and cancel a schedule (cancel confirmed first)', async () => {
    const owner = await consolePerson(t, 'owner');
    const { api } = owner.workspace;
    const plan = await newTrack(api, { amount: 90_000 });
    const s = await schedule(api, {
      target_id: plan.id,
      frequency: 'installment_sequence',
      fixed_amount: 30_000,
      start_date: instantFrom(4),
    });
    const act = (fields: Record<string, string>) =>
      consolePost(t, owner, `/console/plans/${plan.id}/schedules/${s.id}`, {
        idempotency_key: randomUUID(),
        ...fields,
      });
    const statusNow = async () => (await api.get(`/collection-schedules/${s.id}`)).body.data.status;

    const paused = await act({ action: 'pause' });
    assert.equal(paused.statusCode, 303, paused.body);
    assert.equal(paused.headers.location, `/console/plans/${plan.id}?done=paused`);
    assert.equal(await statusNow(), 'paused');
    const page = await consoleGet(t, owner, String(paused.headers.location));
    assert.match(page.body, /The schedule is paused/);
    assert.match(page.body, />Resume</);
    assert.doesNotMatch(page.body, />Pause</);

    const again = await act({ action: 'pause' });
    assert.equal(again.statusCode, 409, again.body);
    assert.match(again.body, /class="problem"/);

    assert.equal((await act({ action: 'resume' })).statusCode, 303);
    assert.equal(await statusNow(), 'active');

    const asked = await act({ action: 'cancel' });
    assert.equal(asked.statusCode, 200, asked.body);
    assert.match(asked.body, /<h1>Cancel this schedule\?<\/h1>/);
    assert.match(asked.body, /Open obligations that would be cancelled/);
    assert.equal(await statusNow(), 'active');

    const cancelled = await act({ action: 'cancel', confirmed: 'yes' });
    assert.equal(cancelled.statusCode, 303, cancelled.body);
    assert.equal(await statusNow(), 'cancelled');
    assert.deepEqual(
      (await obligationsOf(api, plan.id)).map((o) => o.status),
      ['cancelled', 'cancelled', 'cancelled'],
    );

    const other = await newTrack(api);
    const wrongPlan = await consolePost(t, owner, `/console/plans/${other.id}/schedules/${s.id}`, {
      action: 'pause',
    });
    assert.equal(wrongPlan.statusCode, 404);
  });

  test('re-sync shows the dry run as a before and after table and changes nothing until confirmed', async () => {
    const owner = await consolePerson(t, 'owner');
    const { api } = owner.workspace;
    const plan = await newTrack(api, { amount: 100_000, installments: 4 });
    const s = await schedule(api, {
      target_id: plan.id,
      frequency: 'installment_sequence',
      fixed_amount: 25_000,
      start_date: instantFrom(4),
    });
    const raised = await api.patch(`/tracks/${plan.id}`, { amount: 120_000 });
    assert.equal(raised.status, 200, JSON.stringify(raised.body));
    const amounts = async () => (await obligationsOf(api, plan.id)).map((o) => o.amount);
    const path = `/console/plans/${plan.id}/schedules/${s.id}`;

    const preview = await consolePost(t, owner, path, { action: 'sync_payment_plan' });
    assert.equal(preview.statusCode, 200, preview.body);
    assert.match(preview.body, /<h1>Re-sync the schedule with the plan\?<\/h1>/);
    assert.match(preview.body, /nothing has changed yet/);
    assert.match(preview.body, /<caption>Open obligations before and after<\/caption>/);
    const rows = [
      ...preview.body.matchAll(
        /<tr><td><span class="nowrap">[^<]*<\/span><\/td><td class="num">([^<]*)<\/td><td class="num">([^<]*)<\/td>/g,
      ),
    ];
    assert.deepEqual(
      rows.map((r) => [r[1], r[2]]),
      Array(4).fill(['₦250.00', '₦300.00']),
    );
    assert.match(preview.body, /They would ask after<\/div><div class="value">₦1,200\.00/);
    assert.deepEqual(await amounts(), [25_000, 25_000, 25_000, 25_000]);

    const stale = await consolePost(t, owner, path, {
      action: 'sync_payment_plan',
      confirmed: 'yes',
      preview: 'other',
    });
    assert.equal(stale.statusCode, 409, stale.body);
    assert.match(stale.body, /The plan changed since the preview/);
    assert.deepEqual(await amounts(), [25_000, 25_000, 25_000, 25_000]);

    const confirmed = await consolePost(t, owner, path, {
      action: 'sync_payment_plan',
      confirmed: 'yes',
      preview: hidden(preview.body, 'preview') ?? '',
    });
    assert.equal(confirmed.statusCode, 303, confirmed.body);
    assert.equal(confirmed.headers.location, `/console/plans/${plan.id}?done=synced`);
    assert.deepEqual(await amounts(), [30_000, 30_000, 30_000, 30_000]);

    const nothing = await consolePost(t, owner, path, { action: 'sync_payment_plan' });
    assert.equal(nothing.statusCode, 200);
    assert.match(nothing.body, /Nothing would change/);
    assert.doesNotMatch(nothing.body, /Re-sync now/);
  });

  test('collectors and viewers see no plan or schedule changes, and the console refuses them', async () => {
    const owner = await consolePerson(t, 'owner');
    const { api } = owner.workspace;
    const plan = await newTrack(api, { amount: 60_000 });
    const s = await schedule(api, {
      target_id: plan.id,
      frequency: 'installment_sequence',
      fixed_amount: 30_000,
      start_date: instantFrom(4),
    });
    const collector = await consolePerson(t, 'collector', owner.workspace);
    const viewer = await consolePerson(t, 'viewer', owner.workspace);

    const seen = await consoleGet(t, collector, `/console/plans/${plan.id}`);
    assert.equal(seen.statusCode, 200);
    assert.match(seen.body, /Record a payment/);
    assert.doesNotMatch(seen.body, />Pause</);
    assert.doesNotMatch(seen.body, /Add a collection schedule/);
    const looked = await consoleGet(t, viewer, `/console/plans/${plan.id}`);
    assert.equal(looked.statusCode, 200);
    assert.doesNotMatch(looked.body, /Record a payment|>Pause<|Add a collection schedule|Re-sync/);

    for (const person of [collector, viewer]) {
      assert.equal((await consoleGet(t, person, '/console/plans/new')).statusCode, 403);
      const paused = await consolePost(t, person, `/console/plans/${plan.id}/schedules/${s.id}`, {
        action: 'pause',
      });
      assert.equal(paused.statusCode, 403);
      const synced = await consolePost(t, person, `/console/plans/${plan.id}/schedules/${s.id}`, {
        action: 'cancel',
        confirmed: 'yes',
      });
      assert.equal(synced.statusCode, 403);
      const made = await consolePost(t, person, '/console/plans', {
        customer_id: plan.customerId,
        title: 'Forged',
        amount: '10',
        currency: 'NGN',
      });
      assert.equal(made.statusCode, 403);
      const added = await consolePost(t, person, `/console/plans/${plan.id}/schedules`, {
        frequency: 'one_time',
        start_date: dayFrom(3),
      });
      assert.equal(added.statusCode, 403);
    }
    assert.equal((await api.get(`/collection-schedules/${s.id}`)).body.data.status, 'active');
    assert.equal((await api.get('/tracks')).body.data.items.length, 1);
    assert.equal((await api.get(`/collection-schedules?target_id=${plan.id}`)).body.data.items.length, 1);
  });
});
