import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { client } from '../helpers/api.js';
import type { TestApp } from '../helpers/app.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';
import { ARTIFACTS, assertAccessible, screenshots, serveAndBrowse } from './browser.js';

let t: TestApp;
let browser: Browser;
before(async () => {
  ({ t, browser } = await serveAndBrowse());
});
after(async () => {
  await browser?.close();
  await t?.close();
});

test('a payer opens the consent link, sees what will be collected, approves; the link is then used', async () => {
  const { api } = await newWorkspace(t);
  const customer = await newCustomer(api, { name: 'Amaka Eze' });
  const plan = await newTrack(api, { customerId: customer.id, amount: 450_000, title: 'Generator' });
  const schedule = (
    await api.post('/collection-schedules', {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 150_000,
      start_date: new Date(Date.now() + 86_400_000).toISOString(),
      end_date: new Date(Date.now() + 70 * 86_400_000).toISOString(),
      collection_method: 'auto_debit',
    })
  ).body.data;
  const created = await api.post('/payment-mandates', {
    payer_type: 'customer',
    provider: 'gatewayA',
    schedule_id: schedule.id,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const mandate = created.body.data;

  const page = await browser.newPage({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  const response = await page.goto(mandate.consent_url);
  assert.equal(response?.status(), 200);
  const text = (await page.locator('main').textContent()) ?? '';
  for (const shown of [
    'Test workspace',
    'Amaka Eze',
    'gatewayA',
    '₦1,500.00 every month',
    'Approve',
    'Decline',
  ]) {
    assert.ok(text.includes(shown), `the payer sees ${shown}`);
  }
  await screenshots(page, 'consent');
  await assertAccessible(browser, page);

  await page.getByRole('button', { name: 'Approve' }).click();
  await page.waitForLoadState();
  assert.match((await page.locator('h1').textContent()) ?? '', /you approved/i);
  await page.screenshot({ path: path.join(ARTIFACTS, 'consent-approved-1280.png'), fullPage: true });

  assert.equal(
    (await client(t, null).get(`/payment-mandates/${mandate.id}`)).status,
    401,
    'the API still needs a key',
  );
  const after = (await api.get(`/payment-mandates/${mandate.id}`)).body.data;
  assert.equal(after.status, 'active');
  assert.equal(after.consent.ip, '127.0.0.1');
  assert.match(after.consent.user_agent, /Chrome/);

  const again = await page.goto(mandate.consent_url);
  assert.equal(again?.status(), 410);
  assert.match((await page.locator('h1').textContent()) ?? '', /already used/i);
  await page.close();
});
