import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { type ConsolePerson, consolePerson, consolePost } from '../helpers/console.js';
import { newPayment, newTrack } from '../helpers/factories.js';
import { SECRET_KEY, setProviderKey } from '../helpers/live-providers.js';
import { messagesEnv, setMessageProvider } from '../helpers/messages.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { assertAccessible, screenshots, serveAndBrowse, shownText } from './browser.js';

let t: TestApp;
let browser: Browser;
let receiver: Receiver;
before(async () => {
  ({ t, browser } = await serveAndBrowse({ PAYTRACK_SECRET_KEY: SECRET_KEY }));
  receiver = await startReceiver();
});
after(async () => {
  await browser?.close();
  await t?.close();
  await receiver?.close();
});

const originOf = (app: TestApp) => `http://127.0.0.1:${(app.app.server.address() as { port: number }).port}`;

/** A browser context signed in as the person, without JavaScript (the pages need none). */
async function signedIn(person: ConsolePerson): Promise<BrowserContext> {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const value = person.cookie.slice(person.cookie.indexOf('=') + 1);
  await context.addCookies([{ name: 'paytrack_session', value, url: originOf(t) }]);
  return context;
}

test('every settings page, at a phone’s width and a laptop’s, accessible; an API key made through its form', async () => {
  const owner = await consolePerson(t, 'owner');
  const { api } = owner.workspace;
  const origin = originOf(t);
  assert.equal(
    (
      await api.patch('/account', {
        name: 'Ade Motors',
        timeZone: 'Africa/Lagos',
        country: 'NG',
        supportEmail: 'help@ademotors.example',
        supportPhone: '+2348031234567',
        brandColor: '#0b6e4f',
      })
    ).status,
    200,
  );
  await consolePerson(t, 'admin', owner.workspace);
  await consolePerson(t, 'viewer', owner.workspace);
  const invited = await consolePost(t, owner, '/console/settings/people', {
    email: 'amaka.collector@example.com',
    name: 'Amaka Eze',
    role: 'collector',
  });
  assert.equal(invited.statusCode, 201);
  const endpoint = await api.post('/webhooks', {
    url: receiver.url,
    description: 'Order system',
    eventTypes: ['payment.recorded', 'webhook.test'],
  });
  assert.equal(endpoint.status, 201);
  await api.post('/account/test-clock/advance', { days: 3 });
  const track = await newTrack(api, { amount: 4_000_000 });
  await newPayment(api, track.id, { amount: 1_500_000 });
  await api.post('/reports/export', { report: 'payments', format: 'csv' });
  await api.post('/reports/export', { report: 'overdue', format: 'json' });
  await t.worker.drain();
  await setProviderKey(t, owner.workspaceId, {
    provider: 'paystack',
    mode: 'live',
    secretKey: 'sk_live_0123456789abcdefWXYZ',
    rails: 'checkout,virtual_account',
    approved: true,
  });
  await setMessageProvider(messagesEnv(t, origin), owner.workspaceId, {
    provider: 'africastalking',
    credentials: { username: 'ademotors', apiKey: 'atsk_0123456789abcdef9876' },
    args: ['--sms-from', 'ADEMOTORS'],
  });

  const context = await signedIn(owner);
  const page = await context.newPage();
  const visit = async (path: string, name: string, heading: RegExp) => {
    const response = await page.goto(`${origin}${path}`);
    assert.equal(response?.status(), 200, path);
    assert.match(await shownText(page), heading, path);
    await assertAccessible(browser, page);
    await screenshots(page, name);
  };

  await visit('/console/settings', 'console-settings-index', /Settings All settings/);
  await visit('/console/settings/workspace', 'console-settings-workspace', /Workspace settings/);
  await visit('/console/settings/people', 'console-settings-people', /amaka\.collector@example\.com/);
  await visit('/console/settings/sessions', 'console-settings-sessions', /this session \(you\)/);
  await visit('/console/settings/keys', 'console-settings-keys', /Create a test key/);
  await visit('/console/settings/webhooks', 'console-settings-webhooks', /Order system/);
  await page.getByRole('link', { name: receiver.url }).click();
  await page.getByRole('button', { name: 'Send a test event' }).click();
  await t.worker.drain();
  await page.reload();
  assert.match(await shownText(page), /webhook\.test/);
  await assertAccessible(browser, page);
  await screenshots(page, 'console-settings-webhook');
  await visit('/console/settings/providers', 'console-settings-providers', /ends in WXYZ/);
  await visit('/console/settings/exports', 'console-settings-exports', /Download/);
  await visit('/console/settings/test-clock', 'console-settings-test-clock', /3 days ahead of real time/);

  // One form end to end: an API key with two scopes, shown once.
  await page.goto(`${origin}/console/settings/keys`);
  await page.getByLabel('Name').fill('Shop website');
  await page.getByLabel('Customers').selectOption('read');
  await page.getByLabel('Payments', { exact: true }).selectOption('write');
  await page.getByRole('button', { name: 'Create key' }).click();
  const made = await shownText(page);
  assert.match(made, /Copy it now: it is shown only this once/);
  assert.match(made, /customers:read, payments:write/);
  const key = await page.getByLabel('API key').inputValue();
  assert.match(key, /^pt_test_[0-9A-Za-z]{32}$/);
  await assertAccessible(browser, page);
  await screenshots(page, 'console-settings-keys-created');
  const account = await t.app.inject({
    method: 'GET',
    url: '/api/v1/customers',
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(account.statusCode, 200);

  // A refused form: the field errors beside their fields.
  await page.goto(`${origin}/console/settings/workspace`);
  await page.getByLabel('Time zone').fill('Mars/Olympus');
  await page.getByLabel('Colour').fill('green');
  await page.getByRole('button', { name: 'Save settings' }).click();
  assert.match(await shownText(page), /must be an IANA time zone/);
  await assertAccessible(browser, page);
  await screenshots(page, 'console-settings-workspace-refused');

  // A viewer: the same pages, no forms.
  const viewer = await consolePerson(t, 'viewer', owner.workspace);
  const viewing = await signedIn(viewer);
  const seen = await viewing.newPage();
  await seen.goto(`${origin}/console/settings/keys`);
  assert.equal(await seen.locator('main form').count(), 0);
  await assertAccessible(browser, seen);
  await screenshots(seen, 'console-settings-keys-viewer');
  await context.close();
  await viewing.close();
});
