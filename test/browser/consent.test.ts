import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';

/** Debian's Chromium; `npx playwright install` cannot download here. */
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARTIFACTS = path.resolve('test/artifacts');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

let t: TestApp;
let browser: Browser;
before(async () => {
  const port = await freePort();
  t = await buildTestApp({ env: { PUBLIC_URL: `http://127.0.0.1:${port}` } });
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
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
  // Nothing is wider than a phone's screen.
  const overflow = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  assert.ok(overflow <= 360, `page is ${overflow} px wide at 360`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'consent-360.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'consent-1280.png'), fullPage: true });

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
