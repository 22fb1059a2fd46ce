import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { runSweepsNow } from '../../src/jobs/sweeps.js';
import type { TestApp } from '../helpers/app.js';
import { newSchedule } from '../helpers/collections.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';
import { notification, notify, providerSetting } from '../helpers/providers.js';
import { assertAccessible, screenshots, serveAndBrowse } from './browser.js';

// Test mode's checkout page, standing in for a provider's: what a payer sees of an instalment paid in part, paid
// in full, and no longer asked for.

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

test('a payer pays what is left of an instalment paid in part; the link then says it is paid', async () => {
  const { api, workspaceId } = await newWorkspace(t);
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
  const text = (await page.locator('main').textContent()) ?? '';
  for (const shown of ['Pay Test workspace', '₦300.00', 'Test mode']) {
    assert.ok(text.includes(shown), `the payer sees ${shown}: ${text}`);
  }
  await screenshots(page, 'checkout-rest');
  await assertAccessible(browser, page);

  await page.getByRole('button', { name: 'Pay ₦300.00' }).click();
  await page.waitForLoadState();
  assert.equal(await page.locator('h1').textContent(), 'Paid');
  await screenshots(page, 'checkout-paid');
  const plain = await page.goto(url);
  assert.equal(plain?.status(), 200);
  assert.equal(await page.locator('h1').textContent(), 'Already paid');
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
  assert.equal(await page.getByRole('button').count(), 0);
  await screenshots(page, 'checkout-no-longer-due');
  await assertAccessible(browser, page);
  assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 45_000);
  await page.close();
});
