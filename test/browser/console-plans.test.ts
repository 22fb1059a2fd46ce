import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { consolePerson } from '../helpers/console.js';
import { newCustomer, newPayment, newTrack } from '../helpers/factories.js';
import { assertAccessible, screenshots, serveAndBrowse, shownText } from './browser.js';

// The plans and payments of the console in Chromium without scripts: each page passes axe and fits a phone;
// a plan is created with its schedule, a re-sync previewed, a payment recorded and then reversed.

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
const dayFrom = (days: number) => new Date(t.clock.now().getTime() + days * DAY).toISOString().slice(0, 10);

test('plans and payments: list, page, forms; a plan made, a payment recorded and reversed', async () => {
  const owner = await consolePerson(t, 'owner');
  const { api } = owner.workspace;
  const amaka = await newCustomer(api, { name: 'Amaka Eze' });
  const fridge = await newTrack(api, { customerId: amaka.id, title: 'Samsung fridge', amount: 450_000 });
  const made = await api.post('/collection-schedules', {
    target_type: 'payment_plan',
    target_id: fridge.id,
    frequency: 'monthly',
    fixed_amount: 75_000,
    start_date: new Date(t.clock.now().getTime() - 40 * DAY).toISOString(),
    end_date: new Date(t.clock.now().getTime() + 120 * DAY).toISOString(),
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  await newPayment(api, fridge.id, { amount: 100_000, method: 'bank_transfer', reference: 'GTB-0091' });
  await newTrack(api, { title: 'Generator, paid off', amount: 20_000 }).then((p) =>
    newPayment(api, p.id, { amount: 20_000 }),
  );

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
  const visit = async (path: string, name: string | null, status = 200) => {
    const res = await page.goto(`${origin}${path}`);
    assert.equal(res?.status(), status, path);
    await assertAccessible(browser, page);
    if (name) await screenshots(page, name);
  };

  await visit('/console/plans', 'console-plans');
  assert.match(await shownText(page), /Samsung fridge Amaka Eze ₦3,500\.00 active ₦4,500\.00 ₦1,000\.00/);

  await visit(`/console/plans/${fridge.id}`, 'console-plan');
  const planText = await shownText(page);
  assert.match(planText, /paid ₦750\.00 ₦750\.00 ₦0\.00/);
  assert.match(planText, /overdue ₦750\.00 ₦250\.00 ₦500\.00/);
  assert.match(planText, /Overdue now ₦500\.00/);

  // The re-sync's dry run, then back without changing anything.
  await page.setViewportSize({ width: 360, height: 740 });
  await page.getByRole('button', { name: 'Re-sync with the plan…' }).click();
  assert.match(await shownText(page), /nothing has changed yet/);
  await assertAccessible(browser, page);
  await screenshots(page, 'console-plan-resync');
  await page.getByRole('link', { name: 'Back without changing anything' }).click();

  await visit('/console/plans/new', 'console-plan-new');
  await page.getByLabel('Customer').selectOption({ label: 'Amaka Eze' });
  await page.getByLabel('Title').fill('Cooker, 3 months');
  await page.getByLabel('Amount', { exact: true }).fill('900');
  await page.getByLabel('How often').selectOption('installment_sequence');
  await page.getByLabel('Number of instalments').fill('3');
  await page.getByLabel('First due date').fill(dayFrom(7));
  await page.getByRole('button', { name: 'Create plan' }).click();
  assert.match(await shownText(page), /The plan and its collection schedule were created\./);
  assert.match(await shownText(page), /Cooker, 3 months/);
  const cooker = (await api.get(`/tracks?customerId=${amaka.id}`)).body.data.items[0];
  assert.equal(cooker.title, 'Cooker, 3 months');
  const obligations = (await api.get(`/obligations?track_id=${cooker.id}`)).body.data.items;
  assert.deepEqual(
    obligations.map((o: { amount: number }) => o.amount),
    [30_000, 30_000, 30_000],
  );

  await visit('/console/payments', 'console-payments');
  assert.match(await shownText(page), /GTB-0091/);

  await visit(`/console/payments/new?track_id=${fridge.id}`, 'console-payment-new');
  await page.getByLabel('Amount').fill('500');
  await page.getByLabel('Method').selectOption('cash');
  await page.getByLabel('Reference (optional)').fill('RCPT-12');
  await page.getByRole('button', { name: 'Record payment' }).click();
  assert.match(await shownText(page), /The payment was recorded\./);
  assert.match(page.url(), /\/console\/payments\/pay_\w+\?done=recorded$/);
  await assertAccessible(browser, page);
  await screenshots(page, 'console-payment');
  assert.equal((await api.get(`/tracks/${fridge.id}`)).body.data.balance, 300_000);

  await page.getByLabel('Reason').fill('Recorded on the wrong plan');
  await page.getByLabel(/I understand the balance of Samsung fridge goes back up by ₦500\.00/).check();
  await page.getByRole('button', { name: 'Reverse payment' }).click();
  assert.match(await shownText(page), /The payment was reversed/);
  assert.match(await shownText(page), /Recorded on the wrong plan/);
  await assertAccessible(browser, page);
  assert.equal((await api.get(`/tracks/${fridge.id}`)).body.data.balance, 350_000);
  await context.close();
});
