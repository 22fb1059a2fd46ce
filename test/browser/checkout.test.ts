import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { runSweepsNow } from '../../src/jobs/sweeps.js';
import type { TestApp } from '../helpers/app.js';
import { setBusiness } from '../helpers/business.js';
import { newSchedule } from '../helpers/collections.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';
import { notification, notify, providerSetting } from '../helpers/providers.js';
import { assertAccessible, screenshots, serveAndBrowse, shownText } from './browser.js';

// Test mode's checkout page, standing in for a provider's: what a payer sees of an instalment paid in part, paid
// in full, and no longer asked for.

/** The browser's getComputedStyle, run in the page (these tests are compiled without the DOM's types). */
type Styles = { getComputedStyle(e: unknown): { backgroundColor: string; color: string } };

let t: TestApp;
let browser: Browser;
before(async () => {
  ({ t, browser } = await serveAndBrowse());
});
after(async () => {
  await browser?.close();
  await t?.close();
});

/** A plan whose one instalment, due today, is collected by checkout: its checkout page, made by the worker. */
async function dueCheckout(api: any, workspaceId: string, title: string) {
  const customer = await newCustomer(api, { name: 'Chinedu Okafor' });
  const plan = await newTrack(api, { customerId: customer.id, amount: 45_000, title });
  const schedule = await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'one_time',
    fixed_amount: 45_000,
    start_date: new Date().toISOString(),
    collection_method: 'gatewayA_checkout',
  });
  await runSweepsNow(t.ctx, { mode: 'test', workspaceId, now: new Date() });
  const [due] = (await api.get(`/collection-schedules/${schedule.id}/obligations`)).body.data.items;
  assert.ok(due.checkout_url, JSON.stringify(due));
  return { plan, schedule, url: due.checkout_url as string };
}

const textOf = shownText;

test('a payer pays what is left of an instalment paid in part; the link then says it is paid', async () => {
  const { api, workspaceId } = await newWorkspace(t, { timezone: 'Africa/Lagos' });
  await setBusiness(t, workspaceId, {
    name: 'Ade Motors',
    support_email: 'help@ademotors.ng',
    support_phone: '+2348031234567',
    brand_color: '#0b6e4f',
  });
  const setting = await providerSetting(t, workspaceId, 'gatewayA');
  const { plan, url } = await dueCheckout(api, workspaceId, 'Freezer');
  const checkoutId = new URL(url).pathname.split('/').pop() as string;
  const part = await notify(
    t,
    setting,
    notification(checkoutId, {
      type: 'checkout.completed',
      amount: 15_000,
      occurred_at: new Date().toISOString(),
    }),
  );
  assert.equal(JSON.parse(part.body).data.outcome, 'recorded');

  const page = await browser.newPage({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  assert.equal((await page.goto(url))?.status(), 200);
  const text = await textOf(page);
  for (const shown of [
    'Pay Ade Motors',
    'Test mode',
    'For Freezer',
    'Customer Chinedu Okafor',
    'Paid to Ade Motors',
    'Amount ₦450.00 Paid so far ₦150.00 Left to pay ₦300.00',
    'Questions about this payment? Contact Ade Motors',
  ]) {
    assert.ok(text.includes(shown), `the payer sees ${shown}: ${text}`);
  }
  assert.match(text, /Due \w+day \d{1,2} \w+ \d{4}/);
  assert.equal(
    await page
      .locator('.approve')
      .evaluate((e) => (globalThis as unknown as Styles).getComputedStyle(e).backgroundColor),
    'rgb(11, 110, 79)',
  );
  await screenshots(page, 'checkout-rest');
  await assertAccessible(browser, page);

  await page.setViewportSize({ width: 360, height: 740 });
  await page.getByRole('button', { name: 'Pay ₦300.00' }).click();
  await page.waitForLoadState();
  assert.equal(await page.locator('h1').textContent(), 'Paid');
  assert.ok((await textOf(page)).includes('Thank you: your payment of ₦300.00 is recorded. For Freezer'));
  await screenshots(page, 'checkout-paid');
  await assertAccessible(browser, page);
  await page.setViewportSize({ width: 360, height: 740 });
  const plain = await page.goto(url);
  assert.equal(plain?.status(), 200);
  assert.equal(await page.locator('h1').textContent(), 'Already paid');
  assert.match(
    await textOf(page),
    /Freezer, due \w+day .*, was paid to Ade Motors on \w+day \d{1,2} \w+ \d{4}\./,
  );
  assert.equal(await page.getByRole('button').count(), 0);
  await screenshots(page, 'checkout-already-paid');
  await assertAccessible(browser, page);
  assert.deepEqual(
    [
      (await api.get(`/tracks/${plan.id}`)).body.data.balance,
      (await api.get(`/tracks/${plan.id}`)).body.data.status,
    ],
    [0, 'completed'],
  );
  await page.close();
});

test("a cancelled schedule's checkout link says it is no longer due, and takes nothing", async () => {
  const { api, workspaceId } = await newWorkspace(t);
  const { plan, schedule, url } = await dueCheckout(api, workspaceId, 'Sewing machine');
  assert.equal((await api.patch(`/collection-schedules/${schedule.id}`, { action: 'cancel' })).status, 200);

  const page = await browser.newPage({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  assert.equal((await page.goto(url))?.status(), 410);
  assert.equal(await page.locator('h1').textContent(), 'No longer due');
  assert.match(await textOf(page), /Test workspace no longer asks for Sewing machine, due \w+day/);
  assert.equal(await page.getByRole('button').count(), 0);
  await screenshots(page, 'checkout-no-longer-due');
  await assertAccessible(browser, page);
  assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 45_000);
  await page.close();
});
