import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { Client } from '../helpers/api.js';
import type { TestApp } from '../helpers/app.js';
import { type ConsolePerson, consolePerson } from '../helpers/console.js';
import { newPayment, newTrack, newWorkspace } from '../helpers/factories.js';
import { assertAccessible, screenshots, serveAndBrowse, shownText } from './browser.js';

// The overview in Chromium: with script, Chart.js (served by the console itself) draws a chart into each
// container from the tables beside it, with no CSP violation; without script, the tables alone.

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

/** Runs `work` with the app's frozen clock moved `days` back (records get that time), then puts it back. */
async function daysAgo<T>(days: number, work: () => Promise<T>): Promise<T> {
  const now = t.clock.now();
  t.clock.set(new Date(now.getTime() - days * DAY));
  try {
    return await work();
  } finally {
    t.clock.set(now);
  }
}

/**
 * A Lagos shop: payments on a plan over the last 80 days, plans overdue by 10, 45, 75 and 120 days, a weekly
 * schedule from today, and a dollar plan paid twice.
 */
async function shop(api: Client) {
  const plan = await daysAgo(100, () => newTrack(api, { amount: 5_000_000, title: 'Shop fit-out' }));
  for (const [days, amount] of [
    [80, 120_000],
    [61, 45_000],
    [40, 90_000],
    [33, 30_000],
    [20, 150_000],
    [12, 60_000],
    [5, 75_000],
    [2, 40_000],
    [0, 55_000],
  ] as const)
    await daysAgo(days, () => newPayment(api, plan.id, { amount, method: 'bank_transfer' }));
  for (const [days, amount] of [
    [10, 250_000],
    [45, 180_000],
    [75, 60_000],
    [120, 35_000],
  ] as const) {
    const dueDate = new Date(t.clock.now().getTime() - days * DAY).toISOString().slice(0, 10);
    await daysAgo(200, () => newTrack(api, { amount, dueDate, title: `Due ${dueDate}` }));
  }
  const generator = await newTrack(api, { amount: 400_000, title: 'Generator' });
  const schedule = await api.post('/collection-schedules', {
    target_type: 'payment_plan',
    target_id: generator.id,
    frequency: 'weekly',
    fixed_amount: 50_000,
    start_date: t.clock.now().toISOString(),
  });
  assert.equal(schedule.status, 201, JSON.stringify(schedule.body));
  const dollars = await daysAgo(30, () =>
    newTrack(api, { amount: 90_000, currency: 'USD', title: 'Laptop' }),
  );
  await daysAgo(9, () => newPayment(api, dollars.id, { amount: 20_000, method: 'card' }));
  await newPayment(api, dollars.id, { amount: 15_000, method: 'card' });
}

async function signedIn(person: ConsolePerson, javaScriptEnabled: boolean) {
  const origin = t.ctx.config.publicUrl;
  const context = await browser.newContext({ javaScriptEnabled, viewport: { width: 1280, height: 800 } });
  await context.addCookies([
    { name: 'paytrack_session', value: person.cookie.slice(person.cookie.indexOf('=') + 1), url: origin },
  ]);
  return { context, origin };
}

/**
 * Every error the page logs (a CSP violation is one) and every error its scripts throw; but the browser's own
 * asking for /favicon.ico, which the server does not have.
 */
function errorsOf(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    const where = message.location().url;
    if (message.type() === 'error' && !where.endsWith('/favicon.ico'))
      errors.push(`${message.text()} ${where}`);
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

test('with JavaScript: a chart in each container, drawn from the tables, no CSP violation, accessible', async () => {
  const ws = await newWorkspace(t, { timezone: 'Africa/Lagos' });
  await shop(ws.api);
  const owner = await consolePerson(t, 'owner', ws);
  const { context, origin } = await signedIn(owner, true);
  try {
    // Every CSP violation of the page, as the browser reports it to the page.
    await context.addInitScript(`
      globalThis.violations = [];
      document.addEventListener('securitypolicyviolation', (event) =>
        globalThis.violations.push(event.violatedDirective + ': ' + event.blockedURI));
    `);
    const page = await context.newPage();
    const errors = errorsOf(page);
    assert.equal((await page.goto(`${origin}/console`))?.status(), 200);
    assert.match(
      await shownText(page),
      new RegExp(`Signed in as ${owner.email.replace('.', '\\.')} \\(owner\\)`),
    );

    const boxes = page.locator('[data-chart]');
    // Nothing is overdue in dollars, nor due: those two say so instead of drawing an empty chart.
    assert.equal(await boxes.count(), 4, 'three charts for NGN, one for USD');
    assert.match(await shownText(page), /Nothing is overdue in USD\./);
    await page.waitForFunction(
      `document.querySelectorAll('[data-chart] > canvas').length === document.querySelectorAll('[data-chart]').length`,
    );
    // Each canvas is laid out and has ink on it.
    const drawn =
      (await page.evaluate(`[...document.querySelectorAll('[data-chart] > canvas')].map((canvas) => {
      const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      let inked = 0;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) inked += 1;
      return {
        chart: canvas.parentElement.dataset.chart,
        width: canvas.clientWidth,
        height: canvas.clientHeight,
        inked,
        label: canvas.getAttribute('aria-label'),
      };
    })`)) as { chart: string; width: number; height: number; inked: number; label: string }[];
    assert.deepEqual(
      drawn.map((d) => d.chart),
      ['collections', 'ageing', 'expected', 'collections'],
    );
    for (const d of drawn) {
      assert.ok(d.width > 200 && d.height > 200, JSON.stringify(d));
      assert.ok(d.inked > 1_000, `the ${d.chart} chart has ink: ${JSON.stringify(d)}`);
      assert.match(d.label, /the same numbers are in the table/);
    }
    assert.deepEqual(await page.evaluate('globalThis.violations'), [], 'no CSP violation');
    assert.deepEqual(errors, [], 'no error logged');
    // The tables stay in the page for screen readers (the days' in a <details>).
    assert.ok(await page.getByRole('table', { name: 'Overdue by days past due (NGN)' }).isVisible());
    assert.ok(await page.getByRole('table', { name: 'Expected per week, next 8 weeks (NGN)' }).isVisible());
    await assertAccessible(browser, page);
    await screenshots(page, 'console-overview');
    await page.getByText('The numbers, day by day').first().click();
    assert.ok(await page.getByRole('table', { name: 'Collected per day, last 90 days (NGN)' }).isVisible());
    assert.deepEqual(errors, [], 'no error logged after resizing');
  } finally {
    await context.close();
  }
});

test('without JavaScript: the tables, and no empty room where the charts would be', async () => {
  const ws = await newWorkspace(t, { timezone: 'Africa/Lagos' });
  await shop(ws.api);
  const viewer = await consolePerson(t, 'viewer', ws);
  const { context, origin } = await signedIn(viewer, false);
  try {
    const page = await context.newPage();
    const errors = errorsOf(page);
    assert.equal((await page.goto(`${origin}/console`))?.status(), 200);
    assert.equal(await page.locator('canvas').count(), 0);
    const heights = await page
      .locator('[data-chart]')
      .evaluateAll((boxes) => boxes.map((b) => b.clientHeight));
    assert.deepEqual(heights, [0, 0, 0, 0]);
    const ageing = page.getByRole('table', { name: 'Overdue by days past due (NGN)' });
    assert.ok(await ageing.isVisible());
    assert.match((await ageing.textContent()) ?? '', /31–60 days\s*₦1,800\.00/);
    assert.deepEqual(errors, []);
    await assertAccessible(browser, page);
    await screenshots(page, 'console-overview-no-script');
  } finally {
    await context.close();
  }
});
