import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { setBusiness } from '../helpers/business.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';
import { assertAccessible, screenshots, serveAndBrowse, shownText } from './browser.js';

// A pay link as its payer meets it in a browser without script: the amount chosen within the link's bounds (a
// wrong one said), the test simulator's checkout page, and the link paid.

/** The browser's getComputedStyle, run in the page (these tests are compiled without the DOM's types). */
type Styles = { getComputedStyle(e: unknown): { backgroundColor: string } };

let t: TestApp;
let browser: Browser;
before(async () => {
  ({ t, browser } = await serveAndBrowse());
});
after(async () => {
  await browser?.close();
  await t?.close();
});

/** Ade Motors of Lagos sells Chinedu Okafor a freezer of ₦450.00; a link asks ₦150.00, at least ₦50.00. */
async function freezerLink() {
  const { api, workspaceId } = await newWorkspace(t, { timezone: 'Africa/Lagos' });
  await setBusiness(t, workspaceId, {
    name: 'Ade Motors',
    support_email: 'help@ademotors.ng',
    support_phone: '+2348031234567',
    brand_color: '#0b6e4f',
  });
  const customer = await newCustomer(api, { name: 'Chinedu Okafor' });
  const plan = await newTrack(api, { customerId: customer.id, amount: 45_000, title: 'Freezer' });
  const created = await api.post(`/tracks/${plan.id}/pay-links`, { amount: 15_000, minAmount: 5_000 });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return { api, plan, link: created.body.data };
}

test('a payer changes the amount within the bounds, pays on the simulator page, and the link then says it is paid', async () => {
  const { api, plan, link } = await freezerLink();
  const page = await browser.newPage({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  assert.equal((await page.goto(link.url))?.status(), 200);
  const text = await shownText(page);
  for (const shown of [
    'Pay Ade Motors',
    'Test mode',
    'For Freezer',
    'Customer Chinedu',
    'Paid to Ade Motors',
    'Any amount from ₦50.00 to ₦450.00; ₦150.00 is asked.',
    'Questions about this payment? Contact Ade Motors',
  ]) {
    assert.ok(text.includes(shown), `the payer sees ${shown}: ${text}`);
  }
  assert.ok(!text.includes('Okafor'), 'only the first name');
  assert.equal(await page.getByLabel('Amount to pay, in NGN').inputValue(), '150.00');
  assert.equal(
    await page
      .locator('.approve')
      .evaluate((e) => (globalThis as unknown as Styles).getComputedStyle(e).backgroundColor),
    'rgb(11, 110, 79)',
  );
  await screenshots(page, 'pay-link');
  await assertAccessible(browser, page);

  await page.setViewportSize({ width: 360, height: 740 });
  await page.getByLabel('Amount to pay, in NGN').fill('20.00');
  await page.getByRole('button', { name: 'Pay' }).click();
  await page.waitForLoadState();
  assert.ok(
    (await shownText(page)).includes(
      '₦20.00 is less than the least this link takes: enter an amount from ₦50.00 to ₦450.00.',
    ),
  );
  assert.equal(await page.getByLabel('Amount to pay, in NGN').inputValue(), '20.00');
  await screenshots(page, 'pay-link-bad-amount');
  await assertAccessible(browser, page);

  await page.setViewportSize({ width: 360, height: 740 });
  await page.getByLabel('Amount to pay, in NGN').fill('200.00');
  await page.getByRole('button', { name: 'Pay' }).click();
  await page.waitForLoadState();
  assert.match(new URL(page.url()).pathname, /^\/checkout\/chk_[A-Za-z0-9_-]{22}$/);
  const checkout = await shownText(page);
  for (const shown of ['Pay Ade Motors', 'Test mode: no money moves.', 'For Freezer', 'Amount ₦200.00']) {
    assert.ok(checkout.includes(shown), `the simulator page shows ${shown}: ${checkout}`);
  }
  assert.equal((await api.get(`/payments?trackId=${plan.id}`)).body.data.items.length, 0);
  await screenshots(page, 'pay-link-checkout');
  await assertAccessible(browser, page);

  await page.setViewportSize({ width: 360, height: 740 });
  await page.getByRole('button', { name: 'Pay ₦200.00' }).click();
  await page.waitForLoadState();
  assert.equal(await page.locator('h1').textContent(), 'Paid');
  assert.ok((await shownText(page)).includes('Thank you: your payment of ₦200.00 is recorded.'));
  await screenshots(page, 'pay-link-checkout-paid');
  await assertAccessible(browser, page);

  await page.setViewportSize({ width: 360, height: 740 });
  assert.equal((await page.goto(link.url))?.status(), 200);
  assert.equal(await page.locator('h1').textContent(), 'Paid');
  assert.match(
    await shownText(page),
    /This link was paid: ₦200\.00 to Ade Motors on \w+day \d{1,2} \w+ \d{4}\. Thank you\./,
  );
  assert.equal(await page.getByRole('button').count(), 0);
  await screenshots(page, 'pay-link-paid');
  await assertAccessible(browser, page);

  const payments = (await api.get(`/payments?trackId=${plan.id}`)).body.data.items;
  assert.deepEqual(
    payments.map((p: { amount: number }) => p.amount),
    [20_000],
  );
  assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 25_000);
  assert.equal((await api.get(`/pay-links/${link.id}`)).body.data.status, 'paid');
  await page.close();
});

test('a revoked link says so (410) and offers nothing to press', async () => {
  const { api, plan, link } = await freezerLink();
  assert.equal((await api.delete(`/pay-links/${link.id}`)).status, 200);
  const page = await browser.newPage({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  assert.equal((await page.goto(link.url))?.status(), 410);
  assert.equal(await page.locator('h1').textContent(), 'Link cancelled');
  assert.ok(
    (await shownText(page)).includes(
      'Ade Motors cancelled this link to pay for Freezer, so it takes no payment and nothing was paid.',
    ),
  );
  assert.equal(await page.getByRole('button').count(), 0);
  await screenshots(page, 'pay-link-revoked');
  await assertAccessible(browser, page);
  assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 45_000);
  await page.close();
});
