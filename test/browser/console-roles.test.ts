import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { formatMoney } from '../../src/lib/money.js';
import type { Role } from '../../src/modules/people/index.js';
import type { TestApp } from '../helpers/app.js';
import { type ConsolePerson, consolePerson, PASSWORD } from '../helpers/console.js';
import { newCustomer, newPayment, newTrack, type TestWorkspace } from '../helpers/factories.js';
import { assertAccessible, screenshots, serveAndBrowse, shownText } from './browser.js';

// Each role signs in through the form in Chromium and meets what it may do and only that: owners and admins
// reverse payments and open settings, a collector records payments but reverses nothing and sees no settings, a
// viewer only reads. The overview shows the figures of /reports/summary. A form posted from another site and a
// session replayed after sign-out are refused.

let t: TestApp;
let browser: Browser;
let origin: string;
let ws: TestWorkspace;
let planId: string;
let paymentId: string;
before(async () => {
  ({ t, browser } = await serveAndBrowse());
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const owner = await consolePerson(t, 'owner');
  ws = owner.workspace;
  const customer = await newCustomer(ws.api, { name: 'Chidi Okafor', phone: '+2348031234567' });
  const plan = await newTrack(ws.api, { customerId: customer.id, title: 'Motorcycle', amount: 900_000 });
  planId = plan.id;
  paymentId = (await newPayment(ws.api, plan.id, { amount: 150_000, method: 'cash' })).id;
});
after(async () => {
  await browser?.close();
  await t?.close();
});

/** A person of the shared workspace signed in through the sign-in form, in a browser context of their own. */
async function signedIn(role: Role): Promise<{ person: ConsolePerson; context: BrowserContext; page: Page }> {
  const person = await consolePerson(t, role, ws);
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    javaScriptEnabled: false,
  });
  const page = await context.newPage();
  await page.goto(`${origin}/console/sign-in`);
  await page.getByLabel('E-mail').fill(person.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  assert.equal(new URL(page.url()).pathname, '/console');
  return { person, context, page };
}

async function open(page: Page, path: string) {
  const answer = await page.goto(`${origin}${path}`);
  return answer?.status();
}

const navLinks = async (page: Page) =>
  page.locator('nav.sections a').evaluateAll((links) => links.map((a) => a.textContent ?? ''));

const WHAT = {
  owner: { settings: true, audit: true, record: true, reverse: true, newPlan: true, keyForm: true },
  admin: { settings: true, audit: true, record: true, reverse: true, newPlan: true, keyForm: true },
  collector: { settings: false, audit: false, record: true, reverse: false, newPlan: false, keyForm: false },
  viewer: { settings: true, audit: true, record: false, reverse: false, newPlan: false, keyForm: false },
} as const;

describe('console roles in the browser', () => {
  for (const role of ['owner', 'admin', 'collector', 'viewer'] as const) {
    test(`${role}: sees and may do what the role allows`, async () => {
      const may = WHAT[role];
      const { context, page } = await signedIn(role);
      try {
        assert.match((await page.locator('header.top').textContent()) ?? '', new RegExp(`· ${role}`));
        const nav = await navLinks(page);
        assert.equal(nav.includes('Settings'), may.settings, `${role} settings link`);
        assert.equal(nav.includes('Audit trail'), may.audit, `${role} audit link`);
        await assertAccessible(browser, page);
        await screenshots(page, `console-role-${role}-overview`);

        assert.equal(await open(page, `/console/plans/${planId}`), 200);
        assert.equal((await page.getByRole('link', { name: 'Record a payment' }).count()) > 0, may.record);
        assert.equal(await open(page, '/console/plans'), 200);
        assert.equal((await page.getByRole('link', { name: /New plan/ }).count()) > 0, may.newPlan);

        assert.equal(await open(page, `/console/payments/${paymentId}`), 200);
        assert.equal((await page.getByRole('button', { name: 'Reverse payment' }).count()) > 0, may.reverse);

        assert.equal(await open(page, '/console/settings'), may.settings ? 200 : 403);
        assert.equal(await open(page, '/console/audit'), may.audit ? 200 : 403);
        if (role === 'owner') {
          assert.match(await shownText(page), /payments\.create/);
          await assertAccessible(browser, page);
          await screenshots(page, 'console-audit');
        }
        if (may.settings) {
          assert.equal(await open(page, '/console/settings/keys'), 200);
          assert.equal((await page.locator('main form[method="post"]').count()) > 0, may.keyForm);
        }
        assert.equal(await open(page, '/console/payments/new'), may.record ? 200 : 403);
      } finally {
        await context.close();
      }
    });
  }

  test('the overview shows the figures of /reports/summary for the same month', async () => {
    const { context, page } = await signedIn('viewer');
    try {
      const now = t.clock.now().toISOString();
      const summary = await ws.api.get(`/reports/summary?from=${now.slice(0, 7)}-01T00:00:00.000Z`);
      const ngn = summary.body.data.currencies.find((c: { currency: string }) => c.currency === 'NGN');
      const figure = async (id: string) => ((await page.locator(`#${id} dd`).textContent()) ?? '').trim();
      assert.equal(await figure('ngn-collected-month'), formatMoney(ngn.collected, 'NGN'));
      assert.equal(await figure('ngn-outstanding'), formatMoney(ngn.outstanding, 'NGN'));
      assert.equal(await figure('ngn-overdue'), formatMoney(ngn.overdue, 'NGN'));
    } finally {
      await context.close();
    }
  });

  test('a form posted from another site records nothing', async () => {
    const { person, context, page } = await signedIn('owner');
    const before = (await ws.api.get(`/tracks/${planId}/payments`)).body.data.items.length;
    // Another site's page whose form posts to the console, even with the form token (as if it had leaked).
    const evil = http.createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end(`<!doctype html><form method="post" action="${origin}/console/payments">
<input name="form_token" value="${person.formToken}"><input name="track_id" value="${planId}">
<input name="amount" value="100.00"><input name="method" value="cash"><button>Win a prize</button></form>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.2', resolve));
    try {
      const evilOrigin = `http://127.0.0.2:${(evil.address() as AddressInfo).port}`;
      await page.goto(evilOrigin);
      await page.getByRole('button', { name: 'Win a prize' }).click();
      const landed = new URL(page.url());
      assert.notEqual(landed.pathname.startsWith('/console/payments/pay_'), true, 'no payment page follows');
      const after = (await ws.api.get(`/tracks/${planId}/payments`)).body.data.items.length;
      assert.equal(after, before, 'nothing was recorded');
    } finally {
      evil.close();
      await context.close();
    }
  });

  test('a session replayed after sign-out is refused', async () => {
    const { context, page } = await signedIn('admin');
    const [cookie] = await context.cookies(`${origin}/console`);
    assert.equal(cookie?.name, 'paytrack_session');
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, 'Lax');
    await page.getByRole('button', { name: 'Sign out' }).click();
    assert.equal(new URL(page.url()).pathname, '/console/sign-in');
    await context.close();

    const replay = await browser.newContext({ javaScriptEnabled: false });
    await replay.addCookies([{ name: cookie!.name, value: cookie!.value, url: `${origin}/console` }]);
    const again = await replay.newPage();
    await again.goto(`${origin}/console/payments`);
    assert.equal(new URL(again.url()).pathname, '/console/sign-in', 'the old cookie signs no one in');
    assert.match(await shownText(again), /Sign in/);
    await replay.close();
  });
});
