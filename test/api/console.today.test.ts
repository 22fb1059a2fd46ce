import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { approvedMandate, newSchedule, threeMonthlyDebits } from '../helpers/collections.js';
import { consoleGet, consolePerson } from '../helpers/console.js';
import { newCustomer, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';
import { remind } from '../helpers/messages.js';

// Today's work in the console: the overdue accounts worst first (most days, then the largest amount) with the
// customer's phone to call or message, the last reminder and what became of it, and the buttons to act; the
// collection attempts that failed, with their reason and next retry; the mandates still waiting for their payer.

const NOW = '2028-01-20T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const lagos = () => newWorkspace(t, { timezone: 'Africa/Lagos', country: 'NG' });

/** A plan of `amount` minor units owed in one go on `due` (a date in January 2028): overdue once it has passed. */
async function owing(api: Client, name: string, phone: string, amount: number, due: string) {
  const customer = await newCustomer(api, { name, phone });
  const plan = await newTrack(api, { customerId: customer.id, amount, title: `${name}, fridge` });
  await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'one_time',
    fixed_amount: amount,
    start_date: `${due}T09:00:00Z`,
  });
  return { customer, plan };
}

/** The accounts of the overdue list, as text without tags. */
function overdueRows(html: string): string[] {
  const section = html.slice(html.indexOf('id="overdue"'), html.indexOf('id="failed"'));
  return [...section.matchAll(/<li class="card work">([\s\S]*?)<\/li>/g)].map((m) =>
    (m[1] as string)
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

describe("console: today's work", () => {
  test('the overdue list is worst first (most days, then the largest amount), with tel: and WhatsApp links, amount and days', async () => {
    const ws = await lagos();
    const owner = await consolePerson(t, 'owner', ws);
    const ada = await owing(ws.api, 'Ada Obi', '+2348031234567', 50_000, '2028-01-10');
    await owing(ws.api, 'Bola Ade', '+2348031234568', 90_000, '2028-01-17');
    const chidi = await owing(ws.api, 'Chidi Eze', '+2348031234569', 70_000, '2028-01-10');
    // Not overdue: due next week.
    await owing(ws.api, 'Dayo Ola', '+2348031234570', 99_000, '2028-01-27');

    // The API's default order is the largest amount first; the console's is the most days first.
    const report = await ws.api.get('/reports/overdue');
    assert.deepEqual(
      report.body.data.accounts.items.map((a: { customerName: string }) => a.customerName),
      ['Bola Ade', 'Chidi Eze', 'Ada Obi'],
    );
    const byDays = await ws.api.get('/reports/overdue?order=days_overdue');
    assert.deepEqual(
      byDays.body.data.accounts.items.map((a: { customerName: string }) => a.customerName),
      ['Chidi Eze', 'Ada Obi', 'Bola Ade'],
      'the order the console reads: most days, then the largest amount',
    );
    const unknown = await ws.api.get('/reports/overdue?order=name');
    assert.equal(unknown.status, 422);
    assert.match(JSON.stringify(unknown.body.error), /order/);

    const page = await consoleGet(t, owner, '/console/today');
    assert.equal(page.statusCode, 200, page.body);
    const rows = overdueRows(page.body);
    assert.equal(rows.length, 3, rows.join('\n'));
    assert.match(
      rows[0] as string,
      /^Chidi Eze ₦700\.00 overdue, 10 days Chidi Eze, fridge \+234 803 123 4569 WhatsApp/,
    );
    assert.match(rows[1] as string, /^Ada Obi ₦500\.00 overdue, 10 days/);
    assert.match(rows[2] as string, /^Bola Ade ₦900\.00 overdue, 3 days/);
    assert.doesNotMatch(page.body, /Dayo Ola/);

    assert.match(page.body, /<a href="tel:\+2348031234567">\+234 803 123 4567<\/a>/);
    assert.match(
      page.body,
      /<a class="wa" href="https:\/\/wa\.me\/2348031234567" aria-label="WhatsApp Ada Obi">WhatsApp/,
    );
    assert.match(page.body, new RegExp(`href="/console/customers/${chidi.customer.id}">Chidi Eze</a>`));
    assert.match(page.body, new RegExp(`href="/console/plans/${ada.plan.id}"`));
    assert.match(
      page.body,
      new RegExp(
        `href="/console/reminders/new\\?track_id=${ada.plan.id}&amp;back=/console/today">Send reminder`,
      ),
    );
    assert.match(
      page.body,
      new RegExp(`href="/console/payments/new\\?track_id=${ada.plan.id}">Record payment`),
    );
    assert.match(rows[0] as string, /Last reminder: None yet Send reminder Record payment$/);
  });

  test('the last reminder of each overdue plan shows with its delivery status', async () => {
    const ws = await lagos();
    const collector = await consolePerson(t, 'collector', ws);
    const { plan } = await owing(ws.api, 'Ada Obi', '+2348031234571', 50_000, '2028-01-12');
    await remind(t, ws.api, { trackId: plan.id, channel: 'whatsapp' });
    const [log] = (await ws.api.get('/reminders/logs')).body.data.items;
    assert.ok(log, 'the reminder was tried');

    const page = await consoleGet(t, collector, '/console/today');
    assert.equal(page.statusCode, 200, page.body);
    const [row] = overdueRows(page.body);
    assert.match(row as string, /₦500\.00 overdue, 8 days/);
    assert.match(row as string, new RegExp(`Last reminder: 20 Jan 2028, 13:00, WhatsApp ${log.status}`));
    // A collector may send reminders and record payments.
    assert.match(page.body, />Send reminder</);
    assert.match(page.body, />Record payment</);
  });

  test('failed collection attempts show their reason and next retry; mandates waiting for the payer are listed', async () => {
    const ws = await lagos();
    const viewer = await consolePerson(t, 'viewer', ws);
    // Amounts ending in 13 fail with insufficient_funds in test mode and are retried a day later.
    const failing = await threeMonthlyDebits(ws.api, 10_013);
    await approvedMandate(t, ws.api, failing.schedule.id);
    // Due at the start of 25 Jan in Lagos: tried then, and again a day later.
    const moved = await ws.api.post('/account/test-clock/advance', { to: '2028-01-26T00:00:00Z' });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    // Another plan whose payer has not yet answered the consent page (asked after the clock moved: a link
    // lasts 24 hours).
    const waiting = await threeMonthlyDebits(ws.api, 20_000);
    const waitingCustomer = await ws.api.patch(`/customers/${waiting.customer.id}`, { name: 'Wale Waiting' });
    assert.equal(waitingCustomer.status, 200);
    const pending = await ws.api.post('/payment-mandates', {
      payer_type: 'customer',
      provider: 'gatewayA',
      schedule_id: waiting.schedule.id,
    });
    assert.equal(pending.status, 201, JSON.stringify(pending.body));
    const failed = (await ws.api.get('/collection-attempts?status=failed')).body.data.items;
    assert.deepEqual(
      failed.map((a: { attempt_number: number; failure_code: string }) => [a.attempt_number, a.failure_code]),
      [
        [2, 'insufficient_funds'],
        [1, 'insufficient_funds'],
      ],
    );

    const page = await consoleGet(t, viewer, '/console/today');
    assert.equal(page.statusCode, 200, page.body);
    const failedPart = page.body.slice(page.body.indexOf('id="failed"'), page.body.indexOf('id="waiting"'));
    assert.match(failedPart, new RegExp(`/console/customers/${failing.customer.id}`));
    assert.match(failedPart, /₦100\.13/);
    assert.match(failedPart, /insufficient funds/);
    // Only the latest try of each instalment is work to do.
    assert.match(failedPart, /Tried 26 Jan 2028, 00:00, try 2 of 4\. Next try 28 Jan 2028, 00:00\./);
    assert.match(failedPart, /try 2 of 4/);
    assert.doesNotMatch(failedPart, /try 1 of 4/);
    assert.match(failedPart, /The simulated account has too little money/);
    const waitingPart = page.body.slice(page.body.indexOf('id="waiting"'));
    assert.match(waitingPart, /Wale Waiting/);
    assert.match(waitingPart, /gatewayA/);
    assert.match(waitingPart, /Waiting for consent through gatewayA/);
    assert.match(waitingPart, /the link expires 27 Jan 2028, 01:00/);
    assert.doesNotMatch(waitingPart, new RegExp(failing.customer.id), 'an approved mandate is not waiting');
    // A viewer only looks: no buttons to act.
    assert.doesNotMatch(page.body, />Send reminder</);
    assert.doesNotMatch(page.body, />Record payment</);

    // Paid some other way, the instalment is no longer work: its retry is cancelled and the failure leaves the list.
    await newPayment(ws.api, failing.plan.id, { amount: 10_013, method: 'bank_transfer' });
    const after = await consoleGet(t, viewer, '/console/today');
    assert.match(after.body, /No failed collection needs attention/);
  });

  test('an empty workspace says there is nothing to do; the page needs a session', async () => {
    const ws = await lagos();
    const owner = await consolePerson(t, 'owner', ws);
    const page = await consoleGet(t, owner, '/console/today');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Nothing is overdue/);
    assert.match(page.body, /No failed collection needs attention/);
    assert.match(page.body, /No mandate is waiting for its payer/);
    const anonymous = await t.app.inject({ method: 'GET', url: '/console/today' });
    assert.equal(anonymous.statusCode, 303);
    assert.equal(anonymous.headers.location, '/console/sign-in');
  });

  test('a long overdue list is shown a page at a time', async () => {
    const ws = await lagos();
    const owner = await consolePerson(t, 'owner', ws);
    for (let i = 0; i < 27; i += 1)
      await owing(
        ws.api,
        `Customer ${String(i).padStart(2, '0')}`,
        `+23480312350${String(i).padStart(2, '0')}`,
        1_000 + i,
        `2028-01-${String(1 + (i % 19)).padStart(2, '0')}`,
      );
    const first = await consoleGet(t, owner, '/console/today');
    assert.equal(overdueRows(first.body).length, 25);
    assert.match(first.body, /<strong>₦273\.51<\/strong> overdue in all/);
    const more = /href="\/console\/today\?overdue_cursor=([^"]+)">More overdue accounts/.exec(first.body);
    assert.ok(more, 'a link to the next accounts');
    const second = await consoleGet(t, owner, `/console/today?overdue_cursor=${more[1]}`);
    assert.equal(overdueRows(second.body).length, 2);
    assert.doesNotMatch(second.body, /More overdue accounts/);
    assert.match(second.body, /href="\/console\/today">First overdue accounts/);
  });
});
