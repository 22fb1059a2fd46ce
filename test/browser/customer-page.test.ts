import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { addDays, localDate } from '../../src/lib/calendar.js';
import { shortDayInWords } from '../../src/lib/in-words.js';
import type { TestApp } from '../helpers/app.js';
import { setBusiness } from '../helpers/business.js';
import { approvedMandate, newSchedule } from '../helpers/collections.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';
import { pdfText } from '../helpers/pdf.js';
import { ARTIFACTS, assertAccessible, screenshots, serveAndBrowse, shownText } from './browser.js';

// The customer's own page as they meet it on a phone, without script: what they owe, their instalments and
// payments with receipts, pay now, their automatic payments, a promise to pay; late fees, waived and written off
// instalments in words; and a receipt's public page, valid and reversed.

const DAY = 86_400_000;

let t: TestApp;
let browser: Browser;
before(async () => {
  ({ t, browser } = await serveAndBrowse());
});
after(async () => {
  await browser?.close();
  await t?.close();
});

/** Ade Motors of Lagos: Amaka Eze pays a deep freezer in three instalments (one paid) and a generator by debit. */
async function amaka() {
  const { api, workspaceId } = await newWorkspace(t, { timezone: 'Africa/Lagos' });
  await setBusiness(t, workspaceId, {
    name: 'Ade Motors',
    support_email: 'help@ademotors.ng',
    support_phone: '+2348031234567',
    brand_color: '#0b6e4f',
  });
  const customer = await newCustomer(api, { name: 'Amaka Eze' });
  const freezer = await newTrack(api, { customerId: customer.id, amount: 9_000_000, title: 'Deep freezer' });
  await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: freezer.id,
    frequency: 'monthly',
    fixed_amount: 3_000_000,
    start_date: new Date(t.clock.now().getTime() - 40 * DAY).toISOString(),
    collection_method: 'manual',
  });
  const generator = await newTrack(api, { customerId: customer.id, amount: 4_000_000, title: 'Generator' });
  const debits = await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: generator.id,
    frequency: 'monthly',
    fixed_amount: 2_000_000,
    start_date: new Date(t.clock.now().getTime() + 5 * DAY).toISOString(),
    collection_method: 'auto_debit',
  });
  const mandate = await approvedMandate(t, api, debits.id);
  const paid = (
    await api.post('/payments', {
      trackId: freezer.id,
      amount: 3_000_000,
      method: 'bank_transfer',
      reference: 'GTB-0091',
    })
  ).body.data;
  const mistaken = (await api.post('/payments', { trackId: freezer.id, amount: 500_000, method: 'cash' }))
    .body.data;
  await api.post(`/payments/${mistaken.id}/reverse`, { reason: 'entered twice' });
  const link = (await api.post(`/customers/${customer.id}/portal-links`, {})).body.data;
  return { api, customer, freezer, generator, mandate, paid, mistaken, link };
}

test('the customer page: what is owed, instalments, payments with receipts, pay now, and stopping automatic payments', async () => {
  const { link, paid, mandate, api } = await amaka();
  const page = await browser.newPage({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  assert.equal((await page.goto(link.url))?.status(), 200);
  const text = await shownText(page);
  for (const shown of [
    'Ade Motors',
    'Hello, Amaka Eze',
    'You have ₦100,000.00 left to pay to Ade Motors.',
    'Deep freezer',
    'Left to pay ₦60,000.00',
    'Overdue',
    'Upcoming',
    paid.receipt.number,
    '(reversed)',
    'Automatic payments',
    'Questions? Contact Ade Motors',
  ]) {
    assert.ok(text.includes(shown), `the customer sees ${shown}: ${text}`);
  }
  await screenshots(page, 'customer-page');
  await assertAccessible(browser, page);

  // A receipt from the page: its public page says it stands.
  await page.setViewportSize({ width: 360, height: 740 });
  await page.getByRole('link', { name: paid.receipt.number }).click();
  await page.waitForLoadState();
  const receipt = await shownText(page);
  for (const shown of [
    'Receipt R-000001',
    'Valid: Ade Motors recorded this payment.',
    '₦30,000.00',
    'Bank transfer',
    'GTB-0091',
    paid.receipt.code,
  ]) {
    assert.ok(receipt.includes(shown), `the receipt shows ${shown}: ${receipt}`);
  }
  await screenshots(page, 'receipt');
  await assertAccessible(browser, page);

  // The statement on the page: every charge and payment with the running balance.
  await page.goto(`${link.url}/statement`);
  const statement = await shownText(page);
  for (const shown of ['Statement', 'Opening balance', 'Closing balance ₦100,000.00', 'GTB-0091']) {
    assert.ok(statement.includes(shown), `the statement shows ${shown}: ${statement}`);
  }
  await screenshots(page, 'customer-page-statement');
  await assertAccessible(browser, page);

  // Stopping the generator's automatic payments asks first, then records the customer's revocation.
  await page.goto(link.url);
  await page.getByRole('link', { name: 'Stop them' }).click();
  await page.waitForLoadState();
  assert.ok((await shownText(page)).includes('Stop automatic payments?'));
  await screenshots(page, 'customer-page-stop-debits');
  await assertAccessible(browser, page);
  await page.getByRole('button', { name: 'Stop automatic payments' }).click();
  await page.waitForLoadState();
  assert.ok((await shownText(page)).includes('Automatic payments stopped.'));
  assert.equal((await api.get(`/payment-mandates/${mandate.id}`)).body.data.status, 'revoked');

  // Pay now: the pay link for what is due, paid on the simulator, then the page shows the new receipt.
  await page.locator('form[action$="/pay"]').first().getByRole('button', { name: 'Pay now' }).click();
  await page.waitForLoadState();
  assert.ok((await shownText(page)).includes('Pay Ade Motors'), await shownText(page));
  await screenshots(page, 'customer-page-pay-now');
  await page.getByRole('button', { name: /^Pay/ }).click();
  await page.waitForLoadState();
  await page.getByRole('button', { name: /^Pay/ }).click();
  await page.waitForLoadState();
  await page.goto(link.url);
  const after = await shownText(page);
  assert.ok(after.includes('R-000003'), after);
  await page.close();
});

test('the statement and a receipt as PDF: their first pages drawn for a look, their text the figures shown', async () => {
  const { link, paid } = await amaka();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  for (const [name, url, shown] of [
    ['statement-pdf', `${link.url}/statement.pdf`, ['Amaka Eze', '₦100,000.00', 'GTB-0091']],
    ['receipt-pdf', `${paid.receipt.url}/pdf`, ['R-000001', '₦30,000.00', paid.receipt.code]],
  ] as const) {
    const answer = await fetch(url);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'application/pdf');
    const file = path.join(ARTIFACTS, `${name}.pdf`);
    fs.writeFileSync(file, Buffer.from(await answer.arrayBuffer()));
    const text = pdfText(file);
    for (const figure of shown) assert.ok(text.includes(figure), `${name} shows ${figure}`);
    execFileSync('pdftoppm', [
      '-png',
      '-r',
      '80',
      '-f',
      '1',
      '-l',
      '1',
      '-singlefile',
      file,
      path.join(ARTIFACTS, `${name}-page1`),
    ]);
  }
});

test('a reversed payment’s receipt says so; an expired link and an unknown receipt are clear pages', async () => {
  const { mistaken, api, customer } = await amaka();
  const page = await browser.newPage({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  assert.equal((await page.goto(mistaken.receipt.url))?.status(), 200);
  const text = await shownText(page);
  assert.ok(text.includes('Receipt R-000002'), text);
  assert.match(text, /Reversed on .+ \(entered twice\): Ade Motors no longer counts this payment\./);
  await screenshots(page, 'receipt-reversed');
  await assertAccessible(browser, page);

  const revoked = (await api.post(`/customers/${customer.id}/portal-links`, {})).body.data;
  await api.delete(`/portal-links/${revoked.id}`);
  assert.equal((await page.goto(revoked.url))?.status(), 410);
  assert.ok((await shownText(page)).includes('This link was withdrawn'));
  await screenshots(page, 'customer-page-withdrawn');
  await assertAccessible(browser, page);

  assert.equal((await page.goto(`${new URL(mistaken.receipt.url).origin}/r/0000-0000-0000`))?.status(), 404);
  assert.ok((await shownText(page)).includes('Receipt not found'));
  await page.close();
});

test('a promise to pay made on the page: one above the balance is refused in words with the form kept, then one is shown', async () => {
  const { link, freezer, api } = await amaka();
  const today = localDate(t.clock.now(), 'Africa/Lagos');
  const page = await browser.newPage({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  await page.goto(link.url);
  const plan = page.getByRole('region', { name: 'Deep freezer' });
  await plan.locator('summary', { hasText: 'Promise to pay' }).click();
  await plan.getByLabel('Amount (NGN)').fill('70,000');
  await plan.getByLabel('Pay by').fill(addDays(today, 5));
  await plan.getByRole('button', { name: 'Promise to pay' }).click();
  await page.waitForLoadState();
  let text = await shownText(page);
  assert.ok(
    text.includes('Your promise was not recorded: promise at most what you owe, ₦60,000.00.'),
    `the refusal says why: ${text}`,
  );
  // The form stays open with what was typed, for the payer to correct.
  assert.equal(await plan.getByLabel('Amount (NGN)').inputValue(), '70,000');
  assert.equal(await plan.getByLabel('Pay by').inputValue(), addDays(today, 5));
  assert.ok(await plan.getByLabel('Amount (NGN)').isVisible());
  await screenshots(page, 'customer-page-promise-refused');
  await assertAccessible(browser, page);
  assert.equal((await api.get('/promises')).body.data.items.length, 0);

  await page.setViewportSize({ width: 360, height: 740 });
  await plan.getByLabel('Amount (NGN)').fill('20,000');
  await plan.getByRole('button', { name: 'Promise to pay' }).click();
  await page.waitForLoadState();
  text = await shownText(page);
  for (const shown of [
    'Thank you: your promise to pay is recorded.',
    `You promised to pay ₦20,000.00 by ${shortDayInWords(addDays(today, 5))}.`,
  ]) {
    assert.ok(text.includes(shown), `the payer sees ${shown}: ${text}`);
  }
  assert.equal(await plan.getByRole('button', { name: 'Promise to pay' }).count(), 0, 'one open promise');
  await screenshots(page, 'customer-page-promise');
  await assertAccessible(browser, page);
  const [promise] = (await api.get('/promises')).body.data.items;
  assert.deepEqual(
    [promise.trackId, promise.amount, promise.date, promise.source, promise.status],
    [freezer.id, 2_000_000, addDays(today, 5), 'payer', 'open'],
  );
  await page.close();
});

test('late fees, a waived fee and a written-off instalment in words on the page, its statement and a receipt', async () => {
  const { api, workspaceId } = await newWorkspace(t, { timezone: 'Africa/Lagos' });
  await setBusiness(t, workspaceId, { name: 'Ade Motors', brand_color: '#0b6e4f' });
  const customer = await newCustomer(api, { name: 'Bola Ade' });
  const tv = await newTrack(api, { customerId: customer.id, amount: 9_000_000, title: 'Television' });
  const schedule = await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: tv.id,
    frequency: 'monthly',
    fixed_amount: 3_000_000,
    start_date: new Date(t.clock.now().getTime() + DAY).toISOString(),
    collection_method: 'manual',
    late_fee: { type: 'fixed', value: 250_000, every_days: 7, grace_days: 3 },
  });
  assert.ok(schedule.late_fee);
  const moved = await api.post('/account/test-clock/advance', { days: 14 });
  assert.equal(moved.status, 200, JSON.stringify(moved.body));
  const listed = (await api.get(`/obligations?track_id=${tv.id}&limit=100`)).body.data.items as any[];
  const fees = listed.filter((o) => o.kind === 'fee');
  assert.equal(fees.length, 2, JSON.stringify(listed));
  const waived = await api.post(`/obligations/${fees[0].id}/waive`, { reason: 'first time late' });
  assert.equal(waived.status, 200, JSON.stringify(waived.body));
  const written = await api.post(`/tracks/${tv.id}/write-off`, {
    amount: 3_000_000,
    reason: 'Hardship agreed',
  });
  assert.equal(written.status, 200, JSON.stringify(written.body));
  const paid = await api.post('/payments', { trackId: tv.id, amount: 1_000_000, method: 'cash' });
  assert.equal(paid.status, 201, JSON.stringify(paid.body));
  const link = (await api.post(`/customers/${customer.id}/portal-links`, {})).body.data;

  const page = await browser.newPage({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  assert.equal((await page.goto(link.url))?.status(), 200);
  const text = await shownText(page);
  for (const shown of [
    'You have ₦52,500.00 left to pay to Ade Motors.',
    'Instalments and late fees of Television',
    'Late fee',
    '₦2,500.00',
    'Waived',
    'Written off',
    'Overdue ₦20,000.00 left',
  ]) {
    assert.ok(text.includes(shown), `the payer sees ${shown}: ${text}`);
  }
  await screenshots(page, 'customer-page-fees');
  await assertAccessible(browser, page);

  await page.goto(`${link.url}/statement`);
  const statement = await shownText(page);
  for (const shown of [
    'Late fee (Television)',
    'Late fee waived: first time late (Television)',
    'Written off: Hardship agreed (Television)',
    'Closing balance ₦52,500.00',
  ]) {
    assert.ok(statement.includes(shown), `the statement shows ${shown}: ${statement}`);
  }
  await screenshots(page, 'customer-page-statement-fees');
  await assertAccessible(browser, page);

  await page.goto(paid.body.data.receipt.url);
  const receipt = await shownText(page);
  assert.ok(receipt.includes('₦10,000.00') && receipt.includes('Valid'), receipt);
  await screenshots(page, 'receipt-with-fees');
  await assertAccessible(browser, page);
  await page.close();
});
