import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { client } from '../helpers/api.js';
import type { TestApp } from '../helpers/app.js';
import type { BusinessSettings } from '../helpers/business.js';
import { adeMotorsMandate, assertAccessible, screenshots, serveAndBrowse, shownText } from './browser.js';

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

const generatorMandate = (settings: Partial<BusinessSettings> = {}) => adeMotorsMandate(t, { settings });

const textOf = shownText;

function assertShows(text: string, shown: (string | RegExp)[]) {
  for (const s of shown) {
    assert.ok(typeof s === 'string' ? text.includes(s) : s.test(text), `the payer sees ${s}: ${text}`);
  }
}

/** The masthead's and the main button's colours, as the browser computed them (the style was allowed to apply). */
async function brandOf(page: Page, selector: string) {
  return page.locator(selector).evaluate((e) => {
    const style = (globalThis as unknown as Styles).getComputedStyle(e);
    return [style.backgroundColor, style.color];
  });
}

test('a payer reads what will be collected, approves, and is told what happens next; the link is then used and says whose it was', async () => {
  const { api, mandate } = await generatorMandate();
  const page = await browser.newPage({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  const response = await page.goto(mandate.consent_url);
  assert.equal(response?.status(), 200);
  assertShows(await textOf(page), [
    'Authorise automatic payments to Ade Motors',
    'Ade Motors may collect ₦40,000.00 in all from Amaka Eze for Generator by automatic debit through Gateway A, in 3 payments every month from',
    '2 payments of ₦15,000.00 and a last payment of ₦10,000.00',
    /This link works once, until \d{1,2} \w{3} \d{4}, \d\d:\d\d \(Lagos time\)/,
    'help@ademotors.ng',
    '+234 803 123 4567',
    'Approve',
    'Decline',
  ]);
  assert.doesNotMatch(await textOf(page), /gatewayA|UTC/);
  assert.deepEqual(await brandOf(page, '.masthead'), ['rgb(11, 110, 79)', 'rgb(255, 255, 255)']);
  assert.deepEqual(await brandOf(page, '.approve'), ['rgb(11, 110, 79)', 'rgb(255, 255, 255)']);
  await screenshots(page, 'consent');
  await assertAccessible(browser, page);

  await page.setViewportSize({ width: 360, height: 740 });
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.waitForLoadState();
  assert.equal(await page.locator('h1').textContent(), 'You approved automatic payments to Ade Motors');
  assertShows(await textOf(page), [
    'What happens next',
    /The first payment, ₦15,000\.00, will be collected on \w+day \d{1,2} \w+ \d{4} from your account through Gateway A/,
    'To stop these payments, or if anything is wrong, contact Ade Motors',
  ]);
  await screenshots(page, 'consent-approved');
  await assertAccessible(browser, page);

  assert.equal(
    (await client(t, null).get(`/payment-mandates/${mandate.id}`)).status,
    401,
    'the API still needs a key',
  );
  const after = (await api.get(`/payment-mandates/${mandate.id}`)).body.data;
  assert.equal(after.status, 'active');
  assert.equal(after.consent.ip, '127.0.0.1');
  assert.match(after.consent.user_agent, /Chrome/);
  assert.match(after.consent.text_shown, /^Ade Motors may collect ₦40,000\.00 in all/);

  await page.setViewportSize({ width: 360, height: 740 });
  const again = await page.goto(mandate.consent_url);
  assert.equal(again?.status(), 410);
  assert.equal(await page.locator('h1').textContent(), 'Link already used');
  assertShows(await textOf(page), [
    'This link to authorise automatic payments to Ade Motors has already been answered',
    'help@ademotors.ng',
  ]);
  await screenshots(page, 'consent-used');
  await assertAccessible(browser, page);
  await page.close();
});

test('declining: nothing will be taken, what is still owed; a light brand colour takes dark text', async () => {
  const { mandate } = await generatorMandate({ brand_color: '#ffd400' });
  const page = await browser.newPage({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  assert.equal((await page.goto(mandate.consent_url))?.status(), 200);
  assert.deepEqual(await brandOf(page, '.approve'), ['rgb(255, 212, 0)', 'rgb(0, 0, 0)']);
  await screenshots(page, 'consent-light-brand');
  await assertAccessible(browser, page);
  await page.setViewportSize({ width: 360, height: 740 });
  await page.getByRole('button', { name: 'Decline' }).click();
  await page.waitForLoadState();
  assert.equal(await page.locator('h1').textContent(), 'You declined');
  assertShows(await textOf(page), [
    'nothing will be taken from your account',
    /What you owe is still due: the next payment, ₦15,000\.00, on \w+day/,
    'To pay another way, or for a new link if you change your mind, contact Ade Motors',
  ]);
  await screenshots(page, 'consent-declined');
  await assertAccessible(browser, page);
  await page.close();
});

test('an expired link names the business and where to ask for a new one; an unknown one stays neutral', async () => {
  const { api, mandate } = await generatorMandate({ support_email: null });
  assert.equal((await api.post('/account/test-clock/advance', { hours: 25 })).status, 200);
  const page = await browser.newPage({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  assert.equal((await page.goto(mandate.consent_url))?.status(), 410);
  assert.equal(await page.locator('h1').textContent(), 'Link expired');
  assertShows(await textOf(page), [
    'This link to authorise automatic payments to Ade Motors has expired',
    'For a new link, contact Ade Motors',
    '+234 803 123 4567',
  ]);
  await screenshots(page, 'consent-expired');
  await assertAccessible(browser, page);

  await page.setViewportSize({ width: 360, height: 740 });
  const unknown = new URL(mandate.consent_url);
  unknown.pathname = `/consent/ct_${'B'.repeat(43)}`;
  assert.equal((await page.goto(unknown.toString()))?.status(), 404);
  assert.equal(await page.locator('h1').textContent(), 'Link not found');
  assert.doesNotMatch(await textOf(page), /Ade Motors/);
  await screenshots(page, 'consent-unknown');
  await assertAccessible(browser, page);
  await page.close();
});
