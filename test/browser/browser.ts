import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type BusinessSettings, setBusiness } from '../helpers/business.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';

/** Debian's Chromium; `npx playwright install` cannot download here. */
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const ARTIFACTS = path.resolve('test/artifacts');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

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

/** The test app listening on a free port of loopback (its PUBLIC_URL), and Debian's Chromium, headless. */
export async function serveAndBrowse(
  env: Record<string, string> = {},
): Promise<{ t: TestApp; browser: Browser }> {
  const port = await freePort();
  const t = await buildTestApp({ env: { ...env, PUBLIC_URL: `http://127.0.0.1:${port}` } });
  await t.app.listen({ port, host: '127.0.0.1' });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return { t, browser };
}

/** Screenshots of the page as it is, at a phone's width and a laptop's, under test/artifacts/; nothing wider than the phone. */
export async function screenshots(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 360, height: 740 });
  const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  assert.ok(width <= 360, `${name} is ${width} px wide at 360`);
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}-360.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}-1280.png`), fullPage: true });
}

/**
 * axe-core's scan (WCAG 2.1 A and AA rules) of what a page shows, copied into a context of its own where
 * scripts run (the pages themselves need none, and their CSP forbids them; a second request for the page could
 * change it): no violation.
 */
export async function assertAccessible(browser: Browser, shown: Page): Promise<void> {
  const url = shown.url();
  const html = await shown.content();
  const context = await browser.newContext({ bypassCSP: true });
  try {
    const page = await context.newPage();
    await page.setContent(html);
    await page.addScriptTag({ path: AXE });
    const violations = (await page.evaluate(async () => {
      const axe = (
        globalThis as unknown as { axe: { run(options: object): Promise<{ violations: unknown[] }> } }
      ).axe;
      const result = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa'] } });
      return result.violations;
    })) as { id: string; help: string; nodes: { target: unknown }[] }[];
    assert.deepEqual(
      violations.map(
        (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`,
      ),
      [],
      `accessibility of ${url}`,
    );
  } finally {
    await context.close();
  }
}

/** The words a payer sees in the page's main part, as rendered (hidden text left out), spaces collapsed. */
export async function shownText(page: Page): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the payer reads; textContent would run table cells together
  return (await page.locator('main').innerText()).replace(/\s+/g, ' ');
}

const DAY = 86_400_000;

/**
 * A Lagos business (Ade Motors, its contact and colour unless given) selling a generator of ₦40,000.00 in monthly
 * instalments of ₦15,000.00 from tomorrow, collected by automatic debit; a mandate for it (through `provider`, gatewayA unless given), with its consent URL.
 */
export async function adeMotorsMandate(
  t: TestApp,
  options: { settings?: Partial<BusinessSettings>; provider?: string } = {},
) {
  const ws = await newWorkspace(t, { timezone: 'Africa/Lagos' });
  await setBusiness(t, ws.workspaceId, {
    name: 'Ade Motors',
    support_email: 'help@ademotors.ng',
    support_phone: '+2348031234567',
    brand_color: '#0b6e4f',
    ...options.settings,
  });
  const { api } = ws;
  const customer = await newCustomer(api, { name: 'Amaka Eze' });
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
    provider: options.provider ?? 'gatewayA',
    schedule_id: schedule.id,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return { ...ws, mandate: created.body.data };
}
