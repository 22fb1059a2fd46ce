import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { type PaystackFake, startPaystackFake } from '../fakes/paystack.js';
import type { TestApp } from '../helpers/app.js';
import { SECRET_KEY, setProviderKey } from '../helpers/live-providers.js';
import {
  ARTIFACTS,
  adeMotorsMandate,
  assertAccessible,
  screenshots,
  serveAndBrowse,
  shownText,
} from './browser.js';

const _DAY = 86_400_000;

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
  const { api, workspaceId, mandate } = await adeMotorsMandate(t, { provider: 'paystack' });
  await setProviderKey(t, workspaceId, {
    provider: 'paystack',
    mode: 'test',
    secretKey: paystack.secretKey,
    rails: 'debit',
  });

  const page = await browser.newPage({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  assert.equal((await page.goto(mandate.consent_url))?.status(), 200);
  await page.getByRole('button', { name: 'Approve' }).click();
  const next = await shownText(page);
  assert.match(next, /Now authorise with Paystack/);
  await assertAccessible(browser, page);
  await screenshots(page, 'live-mandate-continue');

  await page.getByRole('link', { name: 'Continue to Paystack' }).click();
  assert.ok(page.url().startsWith(paystack.url), page.url());
  // Paystack's page (here its fake) is not ours: a picture of it, without our pages' width rule.
  await page.screenshot({ path: path.join(ARTIFACTS, 'live-mandate-paystack-page-360.png'), fullPage: true });
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
