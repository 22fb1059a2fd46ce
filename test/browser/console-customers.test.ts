import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { approvedMandate, newSchedule } from '../helpers/collections.js';
import { consolePerson } from '../helpers/console.js';
import { newCustomer, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';
import { remind } from '../helpers/messages.js';
import { assertAccessible, screenshots, serveAndBrowse, shownText } from './browser.js';

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
const daysAgo = (days: number) => new Date(t.clock.now().getTime() - days * DAY).toISOString();

test("a collector's day: today's work, the customers, a customer's page, a new customer and a reminder", async () => {
  const ws = await newWorkspace(t, { timezone: 'Africa/Lagos', country: 'NG' });
  const { api } = ws;
  const owner = await consolePerson(t, 'owner', ws);

  // Two overdue plans, one reminded already; a collection that failed; a mandate waiting for its payer.
  const ada = await newCustomer(api, {
    name: 'Adaeze Okafor',
    phone: '0803 123 4567',
    email: 'adaeze@example.com',
    notes: 'Pays on Fridays; ask for her brother if she is out.',
  });
  const fridge = await newTrack(api, { customerId: ada.id, amount: 4_500_000, title: 'Samsung fridge' });
  await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: fridge.id,
    frequency: 'installment_sequence',
    fixed_amount: 1_500_000,
    start_date: daysAgo(40),
  });
  await newPayment(api, fridge.id, { amount: 1_000_000, method: 'bank_transfer' });
  await remind(t, api, { trackId: fridge.id, channel: 'whatsapp' });
  const bola = await newCustomer(api, { name: 'Bola Adeyemi', phone: '+2348097654321' });
  const generator = await newTrack(api, { customerId: bola.id, amount: 900_000, title: 'Generator' });
  await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: generator.id,
    frequency: 'one_time',
    fixed_amount: 900_000,
    start_date: daysAgo(3),
  });
  const chidi = await newCustomer(api, { name: 'Chidi Eze', phone: '+2348055550001' });
  const laptop = await newTrack(api, { customerId: chidi.id, amount: 30_039, title: 'Laptop' });
  const debit = await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: laptop.id,
    frequency: 'installment_sequence',
    fixed_amount: 10_013,
    start_date: new Date(t.clock.now().getTime() + DAY).toISOString(),
    collection_method: 'auto_debit',
  });
  await approvedMandate(t, api, debit.id);
  await api.post('/account/test-clock/advance', { days: 2 });
  const dayo = await newCustomer(api, { name: 'Dayo Ola', phone: '+2348055550002' });
  const phone = await newTrack(api, { customerId: dayo.id, amount: 60_000, title: 'Phone' });
  const waiting = await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: phone.id,
    frequency: 'installment_sequence',
    fixed_amount: 20_000,
    start_date: new Date(t.clock.now().getTime() + 10 * DAY).toISOString(),
    collection_method: 'auto_debit',
  });
  assert.equal(
    (
      await api.post('/payment-mandates', {
        payer_type: 'customer',
        provider: 'gatewayA',
        schedule_id: waiting.id,
      })
    ).status,
    201,
  );

  const origin = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  const context = await browser.newContext({
    javaScriptEnabled: false,
    viewport: { width: 360, height: 740 },
  });
  await context.addCookies([
    { name: 'paytrack_session', value: owner.cookie.slice(owner.cookie.indexOf('=') + 1), url: origin },
  ]);
  const page = await context.newPage();

  assert.equal((await page.goto(`${origin}/console/today`))?.status(), 200);
  const today = await shownText(page);
  assert.match(today, /Adaeze Okafor/);
  assert.match(today, /Bola Adeyemi/);
  assert.ok(today.indexOf('Adaeze Okafor') < today.indexOf('Bola Adeyemi'), 'most days overdue first');
  assert.match(today, /insufficient funds/);
  assert.match(today, /Dayo Ola/);
  await assertAccessible(browser, page);
  await screenshots(page, 'console-today');

  assert.equal((await page.goto(`${origin}/console/customers`))?.status(), 200);
  await page.getByLabel('Name, phone or e-mail').fill('0803 123 4567');
  await page.getByRole('button', { name: 'Search' }).click();
  const found = await shownText(page);
  assert.match(found, /Adaeze Okafor/);
  assert.doesNotMatch(found, /Bola Adeyemi/);
  await page.goto(`${origin}/console/customers`);
  await assertAccessible(browser, page);
  await screenshots(page, 'console-customers');

  assert.equal((await page.goto(`${origin}/console/customers/${ada.id}`))?.status(), 200);
  const customer = await shownText(page);
  assert.match(customer, /Samsung fridge/);
  assert.match(customer, /Payment recorded/);
  await assertAccessible(browser, page);
  await screenshots(page, 'console-customer');

  // A new customer, the phone written as people write it, with a mistake first.
  await page.goto(`${origin}/console/customers`);
  await page.getByRole('link', { name: 'New customer' }).click();
  await page.getByLabel('Name').fill('Ngozi Nwosu');
  await page.getByLabel('Phone').fill('12');
  await page.getByRole('button', { name: 'Create customer' }).click();
  assert.match(await shownText(page), /Phone/);
  assert.equal(await page.getByLabel('Name').inputValue(), 'Ngozi Nwosu');
  await assertAccessible(browser, page);
  await page.getByLabel('Phone').fill('0805 555 1234');
  await page.getByLabel('E-mail (optional)').fill('ngozi@example.com');
  await page.getByRole('button', { name: 'Create customer' }).click();
  assert.match(await shownText(page), /Customer created\./);
  assert.match(page.url(), /\/console\/customers\/cus_\w+\?done=created$/);
  const made = (await api.get('/customers?q=Ngozi')).body.data.items[0];
  assert.equal(made.phone, '+2348055551234');
  await page.goto(`${origin}/console/customers/new`);
  await assertAccessible(browser, page);
  await screenshots(page, 'console-customer-new');

  // A reminder about the fridge, from today's work.
  await page.goto(`${origin}/console/today`);
  await page.getByRole('link', { name: 'Send reminder' }).first().click();
  assert.match(page.url(), new RegExp(`/console/reminders/new\\?track_id=${fridge.id}`));
  await assertAccessible(browser, page);
  await screenshots(page, 'console-reminder-new');
  await page.getByLabel('Channel').selectOption('sms');
  await page.getByRole('button', { name: 'Send reminder now' }).click();
  assert.match(page.url(), /\/console\/today\?done=reminder_sent$/);
  assert.match(await shownText(page), /Reminder sent\./);
  await t.worker.drain();
  const logs = (await api.get('/reminders/logs?channel=sms')).body.data.items;
  assert.equal(logs.length, 1);
  await context.close();
});
