import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { setBusiness } from '../helpers/business.js';
import { newSchedule } from '../helpers/collections.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';
import { notification, notify, providerSetting } from '../helpers/providers.js';

// Test mode's checkout page as a payer reads it: what is paid for, for whom, to whom, when it was due, with dates
// written for people in the business's zone.

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date('2028-01-20T12:00:00.000Z')) });
});
after(() => t.close());

const CONTACT =
  '<ul class="contact"><li>E-mail: <a href="mailto:help@ademotors.ng">help@ademotors.ng</a></li><li>Phone: <a href="tel:+2348031234567">+234 803 123 4567</a></li></ul>';

/**
 * A Lagos business selling a freezer for ₦450.00 in three monthly instalments from 25 Jan 2028, paid by
 * checkout; its clock moved to 23:30 UTC on 25 Feb, already the 26th in Lagos: two instalments have pages.
 */
async function freezerPlan() {
  const ws = await newWorkspace(t, { timezone: 'Africa/Lagos' });
  await setBusiness(t, ws.workspaceId, {
    name: 'Ade Motors',
    support_email: 'help@ademotors.ng',
    support_phone: '+2348031234567',
    brand_color: '#0b6e4f',
  });
  const { api } = ws;
  const customer = await newCustomer(api, { name: 'Chinedu Okafor' });
  const plan = await newTrack(api, { customerId: customer.id, amount: 45_000, title: 'Freezer' });
  const schedule = await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'monthly',
    fixed_amount: 15_000,
    start_date: '2028-01-25T09:00:00Z',
    end_date: '2028-03-25T09:00:00Z',
    collection_method: 'gatewayA_checkout',
  });
  await api.post('/account/test-clock/advance', { to: '2028-02-25T23:30:00Z' });
  const [january, february] = await obligationsOf(api, schedule.id);
  return { ...ws, plan, schedule, january, february };
}

async function obligationsOf(api: Client, scheduleId: string) {
  return [...(await api.get(`/collection-schedules/${scheduleId}/obligations`)).body.data.items].reverse();
}

const pathOf = (o: { checkout_url: string }) => new URL(o.checkout_url).pathname;
const show = (path: string) => t.app.inject({ method: 'GET', url: path });
const pay = (path: string) =>
  t.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });

function assertSays(html: string, said: string[]) {
  for (const text of said) assert.ok(html.includes(text), `the page says ${text}\n${html}`);
}

describe('the checkout page', () => {
  test('says what is paid for (plan, instalment n of N), for whom, to whom, when it was due, in words', async () => {
    const { february } = await freezerPlan();
    const page = await show(pathOf(february));
    assert.equal(page.statusCode, 200);
    assertSays(page.body, [
      '<header class="masthead">Ade Motors</header>',
      '<h1>Pay Ade Motors</h1>',
      '<dt>For</dt><dd>Freezer, instalment 2 of 3</dd>',
      '<dt>Customer</dt><dd>Chinedu Okafor</dd>',
      '<dt>Paid to</dt><dd>Ade Motors</dd>',
      '<dt>Due</dt><dd>Friday 25 February 2028</dd>',
      '<dt>Amount</dt><dd><strong>₦150.00</strong></dd>',
      '<button class="approve" type="submit">Pay ₦150.00</button>',
      `<p>Questions about this payment? Contact Ade Motors:</p>${CONTACT}`,
    ]);
    assert.doesNotMatch(page.body, /2028-02-25|Paid so far/);
    const csp = page.headers['content-security-policy'] as string;
    for (const [, style] of page.body.matchAll(/<style>([\s\S]*?)<\/style>/g)) {
      assert.ok(
        csp.includes(
          `'sha256-${createHash('sha256')
            .update(style as string)
            .digest('base64')}'`,
        ),
      );
    }
    assert.match(page.body, /\.masthead, \.approve \{ background: #0b6e4f; color: #fff;/);
  });

  test('paid in part: what it asked, what is paid, what is left; paying says what was paid; then when it was paid, in Lagos', async () => {
    const { workspaceId, january } = await freezerPlan();
    const setting = await providerSetting(t, workspaceId, 'gatewayA');
    const checkoutId = pathOf(january).split('/').pop() as string;
    const part = await notify(
      t,
      setting,
      notification(checkoutId, { type: 'checkout.completed', amount: 5_000 }),
    );
    assert.equal(part.statusCode, 200, part.body);
    const page = await show(pathOf(january));
    assertSays(page.body, [
      '<dt>For</dt><dd>Freezer, instalment 1 of 3</dd>',
      '<dt>Due</dt><dd>Tuesday 25 January 2028</dd>',
      '<dt>Amount</dt><dd>₦150.00</dd><dt>Paid so far</dt><dd>₦50.00</dd><dt>Left to pay</dt><dd><strong>₦100.00</strong></dd>',
      'Pay ₦100.00</button>',
    ]);

    const paid = await pay(pathOf(january));
    assert.equal(paid.statusCode, 200);
    assertSays(paid.body, [
      '<h1>Paid</h1>',
      '<p>Thank you: your payment of <strong>₦100.00</strong> is recorded.</p>',
      '<dt>For</dt><dd>Freezer, instalment 1 of 3</dd>',
      '<dt>Paid to</dt><dd>Ade Motors</dd>',
    ]);
    // Paid at 23:30 UTC on 25 Feb: the 26th in Lagos.
    const done = await show(pathOf(january));
    assert.equal(done.statusCode, 200);
    assertSays(done.body, [
      '<h1>Already paid</h1>',
      '<p>Freezer, instalment 1 of 3, due Tuesday 25 January 2028, was paid to Ade Motors on Saturday 26 February 2028. Nothing more is due on this link.</p>',
    ]);
    assert.doesNotMatch(done.body, /<button/);
    assert.match((await pay(pathOf(january))).body, /<h1>Already paid<\/h1>/);
  });

  test('no longer due: names the business and how to reach it, takes nothing', async () => {
    const { api, plan, schedule, february } = await freezerPlan();
    assert.equal((await api.patch(`/collection-schedules/${schedule.id}`, { action: 'cancel' })).status, 200);
    const page = await show(pathOf(february));
    assert.equal(page.statusCode, 410);
    assertSays(page.body, [
      '<h1>No longer due</h1>',
      '<p>Ade Motors no longer asks for Freezer, due Friday 25 February 2028, so it cannot be paid here and nothing was paid.</p>',
      `<p>If you think you owe it, contact Ade Motors:</p>${CONTACT}`,
    ]);
    assert.equal((await pay(pathOf(february))).statusCode, 410);
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 45_000);
  });

  test("a plan's schedule with no end date counts the instalments to its balance; a business with no contact or colour", async () => {
    const { api } = await newWorkspace(t, { timezone: 'Africa/Lagos' });
    const plan = await newTrack(api, { amount: 40_000, title: 'Tricycle' });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'weekly',
      fixed_amount: 2_000,
      start_date: '2028-01-18T09:00:00Z',
      collection_method: 'gatewayA_checkout',
    });
    await api.post('/account/test-clock/advance', { to: '2028-01-25T09:00:00Z' });
    const second = (await obligationsOf(api, schedule.id)).find((o) => o.due_date === '2028-01-25');
    const page = await show(pathOf(second));
    assert.equal(page.statusCode, 200);
    // 20 weekly payments of ₦20.00 cover ₦400.00: 13 made so far, 7 more as weeks pass.
    assertSays(page.body, [
      '<dt>For</dt><dd>Tricycle, instalment 2 of 20</dd><dt>Customer</dt><dd>Ada Obi</dd><dt>Paid to</dt><dd>Test workspace</dd><dt>Due</dt><dd>Tuesday 25 January 2028</dd>',
      '<p>Questions about this payment? Contact Test workspace.</p>',
    ]);
    assert.doesNotMatch(page.body, /mailto:|tel:/);
    assert.equal([...page.body.matchAll(/<style>/g)].length, 1);
  });

  test('a bad link stays neutral', async () => {
    await freezerPlan();
    const page = await show(`/checkout/chk_${'A'.repeat(22)}`);
    assert.equal(page.statusCode, 404);
    assert.match(page.body, /This checkout link is not valid/);
    assert.doesNotMatch(page.body, /Ade Motors|masthead"/);
  });
});
