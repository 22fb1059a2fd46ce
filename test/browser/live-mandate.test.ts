import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { type PaystackFake, startPaystackFake } from '../fakes/paystack.js';
import type { TestApp } from '../helpers/app.js';
import { setBusiness } from '../helpers/business.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';
import { SECRET_KEY, setProviderKey } from '../helpers/live-providers.js';
import { assertAccessible, screenshots, serveAndBrowse, shownText } from './browser.js';

const DAY = 86_400_000;

let t: TestApp;
let browser: Browser;
let paystack: PaystackFake;
before(async () => {
  paystack = await startPaystackFake();
  ({ t, browser } = await serveAndBrowse({
    PAYTRACK_SECRET_KEY: SECRET_KEY,
    PAYSTACK_API_URL: paystack.url,
  }));
});
after(async () => {
  await browser?.close();
  await t?.close();
  await paystack?.close();
});

test("a live mandate: our consent page, Paystack's hosted page, and back to our return page, active", async () => {
  const ws = await newWorkspace(t, { timezone: 'Africa/Lagos' });
  await setBusiness(t, ws.workspaceId, {
    name: 'Ade Motors',
    support_email: 'help@ademotors.ng',
    support_phone: '+2348031234567',
    brand_color: '#0b6e4f',
  });
  await setProviderKey(t, ws.workspaceId, {
    provider: 'paystack',
    mode: 'test',
    secretKey: paystack.secretKey,
    rails: 'debit',
  });
  const { api } = ws;
  const customer = await newCustomer(api, { name: 'Amaka Eze', email: 'amaka@example.com' });
  const plan = await newTrack(api, { customerId: customer.id, amount: 4_000_000, title: 'Generator' });
  const schedule = (
    await api.post('/collection-schedules', {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'installment_sequence',
      fixed_amount: 1_500_000,
      start_date: new Date(Date.now() + DAY).toISOString(),
      collection_method: 'auto_debit',
    })
  ).body.data;
  const created = await api.post('/payment-mandates', {
    payer_type: 'customer',
    provider: 'paystack',
    schedule_id: schedule.id,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const mandate = created.body.data;

  const page = await browser.newPage({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  assert.equal((await page.goto(mandate.consent_url))?.status(), 200);
  await page.getByRole('button', { name: 'Approve' }).click();
  const next = await shownText(page);
  assert.match(next, /Now authorise with Paystack/);
  await assertAccessible(browser, page);
  await screenshots(page, 'live-mandate-continue');

  await page.getByRole('link', { name: 'Continue to Paystack' }).click();
  assert.ok(page.url().startsWith(paystack.url), page.url());
  await screenshots(page, 'live-mandate-paystack-page');
  await page.getByRole('button', { name: 'Authorize' }).click();

  assert.ok(page.url().startsWith(`${new URL(mandate.consent_url).origin}/consent/`), page.url());
  assert.match(page.url(), /\/return/);
  const done = await shownText(page);
  assert.match(done, /You approved automatic payments to Ade Motors/);
  await assertAccessible(browser, page);
  await screenshots(page, 'live-mandate-returned');

  const active = (await api.get(`/payment-mandates/${mandate.id}`)).body.data;
  assert.equal(active.status, 'active');
  assert.equal(active.payment_method.type, 'direct_debit');
  await page.close();
});
