import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { newSchedule } from '../helpers/collections.js';
import { consolePerson } from '../helpers/console.js';
import { newCustomer, newTrack } from '../helpers/factories.js';
import { assertAccessible, screenshots, serveAndBrowse, shownText } from './browser.js';

// The collections workflow on a plan's console page in Chromium without scripts: a plan with a promise, a late
// fee, a dispute opened and accepted, a write-off and a settlement quote; each page passes axe and fits a phone.

let t: TestApp;
let browser: Browser;
before(async () => {
  ({ t, browser } = await serveAndBrowse());
});
after(async () => {
  await browser?.close();
  await t?.close();
});

const DAY = 86_400_000;

test('collections on a plan: promise, fee waived, dispute accepted, write-off, settlement quote', async () => {
  const owner = await consolePerson(t, 'owner');
  const { api } = owner.workspace;
  const amaka = await newCustomer(api, { name: 'Amaka Eze' });
  const fridge = await newTrack(api, { customerId: amaka.id, title: 'Samsung fridge', amount: 300_000 });
  await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: fridge.id,
    frequency: 'monthly',
    fixed_amount: 100_000,
    start_date: new Date(t.clock.now().getTime() + DAY).toISOString(),
    end_date: new Date(t.clock.now().getTime() + 70 * DAY).toISOString(),
    collection_method: 'manual',
    late_fee: { type: 'fixed', value: 2_500, every_days: null, grace_days: 0 },
  });
  const moved = await api.post('/account/test-clock/advance', { days: 4 });
  assert.equal(moved.status, 200, JSON.stringify(moved.body));
  const today = String(moved.body.data.now).slice(0, 10);
  const promised = await api.post('/promises', { trackId: fridge.id, amount: 50_000, date: today });
  assert.equal(promised.status, 201, JSON.stringify(promised.body));

  const port = (t.app.server.address() as { port: number }).port;
  const origin = `http://127.0.0.1:${port}`;
  const context = await browser.newContext({
    viewport: { width: 360, height: 740 },
    javaScriptEnabled: false,
  });
  await context.addCookies([
    { name: 'paytrack_session', value: owner.cookie.slice(owner.cookie.indexOf('=') + 1), url: origin },
  ]);
  const page = await context.newPage();
  const planPath = `/console/plans/${fridge.id}`;
  const checked = async (name: string) => {
    await assertAccessible(browser, page);
    await screenshots(page, name);
  };

  assert.equal((await page.goto(`${origin}${planPath}`))?.status(), 200);
  let text = await shownText(page);
  assert.match(text, /Late fee on the instalment due/);
  assert.match(text, /₦500\.00 open Recorded by you/);
  assert.match(text, /No disputes\./);

  // A dispute on the plan, opened through its form.
  await page.locator('summary', { hasText: 'Open a dispute' }).click();
  const dispute = page.getByRole('form', { name: 'Open a dispute' });
  await dispute.getByLabel('Reason').selectOption('not_received');
  await dispute.getByLabel('What the customer says (optional)').fill('Says the fridge arrived broken');
  await page.getByRole('button', { name: 'Open dispute' }).click();
  text = await shownText(page);
  assert.match(text, /The dispute was opened/);
  assert.match(text, /The whole plan Goods or service not received open Says the fridge arrived broken/);
  await checked('console-plan-collections');

  // The late fee waived on its own page.
  await page.getByRole('link', { name: /Waive the late fee/ }).click();
  await checked('console-fee-waive');
  await page.getByLabel('Reason').fill('First time late');
  await page.getByRole('button', { name: 'Waive fee' }).click();
  text = await shownText(page);
  assert.match(text, /The late fee was waived\./);
  assert.match(text, /Late fee on the instalment due [^₦]+ waived ₦25\.00/);

  // The dispute accepted with a part written off.
  await page.getByRole('link', { name: 'Reject or accept…' }).click();
  await checked('console-dispute-resolve');
  await page.getByLabel('What to do').selectOption('write_off');
  await page.getByLabel(/Amount to write off/).fill('250');
  await page.getByLabel('Note (optional)').last().fill('Broken on delivery');
  await page.getByRole('button', { name: 'Accept' }).click();
  text = await shownText(page);
  assert.match(text, /The dispute was accepted\./);
  assert.match(text, /Accepted: ₦250\.00 written off\. Broken on delivery/);
  assert.equal((await api.get(`/tracks/${fridge.id}`)).body.data.balance, 275_000);

  // A write-off of its own, shown with the way to reverse it.
  await page.locator('summary', { hasText: 'Write off' }).click();
  const writeOff = page.getByRole('form', { name: 'Write off' });
  await writeOff.getByLabel(/Amount to write off/).fill('100');
  await writeOff.getByLabel('Reason').fill('Goodwill for the delay');
  await page.getByRole('button', { name: 'Write off' }).click();
  text = await shownText(page);
  assert.match(text, /The write-off was recorded\./);
  assert.match(text, /₦100\.00 written off .*: Goodwill for the delay\./);
  await checked('console-plan-written-off');
  assert.equal((await api.get(`/tracks/${fridge.id}`)).body.data.balance, 265_000);

  // The settlement quote, and the payment that settles the plan.
  await page.getByRole('button', { name: 'Settlement quote' }).click();
  text = await shownText(page);
  assert.match(text, /Settles the plan ₦2,650\.00/);
  await checked('console-settlement-quote');
  await page.getByLabel('Method').selectOption('bank_transfer');
  await page.getByRole('button', { name: /Record this payment of ₦2,650\.00/ }).click();
  text = await shownText(page);
  assert.match(text, /the plan is settled/);
  const settled = (await api.get(`/tracks/${fridge.id}`)).body.data;
  assert.equal(settled.status, 'completed');
  assert.equal(settled.balance, 0);
  await context.close();
});
