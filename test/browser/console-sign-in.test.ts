import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { cliEnv, cliJson } from '../helpers/cli.js';
import { newWorkspace } from '../helpers/factories.js';
import { assertAccessible, screenshots, serveAndBrowse, shownText } from './browser.js';

let t: TestApp;
let browser: Browser;
before(async () => {
  ({ t, browser } = await serveAndBrowse());
});
after(async () => {
  await browser?.close();
  await t?.close();
});

test('a person sets a password from their link, is signed in, signs out, and signs in again', async () => {
  const { workspaceId } = await newWorkspace(t);
  const made = await cliJson(
    cliEnv(t.database),
    'user',
    'create',
    '--workspace',
    workspaceId,
    '--email',
    'owner@example.com',
    '--role',
    'owner',
    '--json',
  );
  const origin = String(
    t.app.server.address() && `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`,
  );
  const page = await browser.newPage({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  assert.equal((await page.goto(`${origin}${new URL(made.link).pathname}`))?.status(), 200);
  await assertAccessible(browser, page);
  await screenshots(page, 'console-set-password');
  await page.getByLabel('New password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  assert.match(await shownText(page), /Signed in as owner@example\.com \(owner\)/);
  await assertAccessible(browser, page);
  await screenshots(page, 'console-home');
  await page.getByRole('button', { name: 'Sign out' }).click();
  assert.match(page.url(), /\/console\/sign-in$/);
  await assertAccessible(browser, page);
  await screenshots(page, 'console-sign-in');
  await page.getByLabel('E-mail').fill('owner@example.com');
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  assert.match(await shownText(page), /Signed in as owner@example\.com/);
  await page.close();
});
