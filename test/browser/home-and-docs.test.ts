import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { assertAccessible, serveAndBrowse } from './browser.js';

// The home address and the API reference as a browser shows them: the home address leads to the console's
// sign-in without script, the reference has the paytrack wordmark and the server's version in its top bar.

let t: TestApp;
let browser: Browser;
before(async () => {
  ({ t, browser } = await serveAndBrowse());
});
after(async () => {
  await browser?.close();
  await t?.close();
});

const VERSION: string = JSON.parse(
  fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;

test("the home address, without JavaScript: it leads to the console's sign-in, which links to the API reference", async () => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    const res = await page.goto(t.ctx.config.publicUrl);
    assert.equal(res?.status(), 200);
    assert.equal(new URL(page.url()).pathname, '/console/sign-in');
    assert.deepEqual(errors, [], 'no CSP violation');
    await assertAccessible(browser, page);
    await page.getByRole('link', { name: 'API reference' }).click();
    assert.match(page.url(), /\/docs/);
  } finally {
    await context.close();
  }
});

test('the API reference: titled paytrack API, the paytrack wordmark in the top bar, the server version', async () => {
  const page = await browser.newPage();
  try {
    await page.goto(`${t.ctx.config.publicUrl}/docs`);
    assert.equal(await page.title(), 'paytrack API');
    const logo = page.locator('.topbar img');
    await logo.waitFor();
    const src = (await logo.getAttribute('src')) ?? '';
    const svg = Buffer.from(src.replace(/^data:image\/svg\+xml;base64,/, ''), 'base64').toString('utf8');
    assert.match(svg, />paytrack</);
    await page.locator('.info .title').waitFor();
    assert.match((await page.locator('.info .title').textContent()) ?? '', /paytrack API\s*1\.0\.0/);
    assert.match(
      (await page.locator('.info .description').textContent()) ?? '',
      new RegExp(`Server: paytrack ${VERSION}`),
    );
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: 'test/artifacts/docs-1280.png' });
  } finally {
    await page.close();
  }
});
