import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

/** The server's version as its package says it. */
const VERSION: string = JSON.parse(
  fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;

const get = (url: string) => t.app.inject({ method: 'GET', url });

/** The page of /docs: served at /docs or at the address /docs redirects to. */
async function docsPage() {
  const entry = await get('/docs');
  const url =
    entry.statusCode === 200 ? '/docs' : new URL(entry.headers.location as string, 'http://x/docs/').pathname;
  const page = await get(url);
  assert.equal(page.statusCode, 200);
  return { url, html: page.body };
}

describe('GET /', () => {
  test('sends people to the console (whose sign-in page links to the API reference)', async () => {
    const res = await get('/');
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, '/console');
    assert.equal(res.headers['cache-control'], 'no-store');
    const signedOut = await get('/console');
    assert.equal(signedOut.statusCode, 303);
    assert.equal(signedOut.headers.location, '/console/sign-in');
    const signIn = await get('/console/sign-in');
    assert.equal(signIn.statusCode, 200);
    assert.match(signIn.body, /<a href="\/docs">API reference<\/a>/);
  });

  test('HEAD / answers the same redirect without a body', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: '/' });
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, '/console');
    assert.equal(res.body, '');
  });

  test('other methods on / are 405 in the envelope', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/', payload: {} });
    assert.equal(res.statusCode, 405);
    assert.equal(res.json().error.code, 'method_not_allowed');
  });
});

describe('GET /docs', () => {
  test('titled paytrack API, with the paytrack icon and no framework logo or icon', async () => {
    const { url, html } = await docsPage();
    assert.match(html, /<title>paytrack API<\/title>/);
    assert.doesNotMatch(html, /favicon-(16x16|32x32)\.png/, "Swagger's icons");
    const icon = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/.exec(html);
    assert.ok(icon, html);
    const served = await get(new URL(icon[1] as string, `http://x${url}`).pathname);
    assert.equal(served.statusCode, 200);
    assert.match(String(served.headers['content-type']), /^image\/svg\+xml/);
    assert.match(served.body, /^<svg /);
  });

  test("the top bar shows the paytrack wordmark with the server's version, linking home", async () => {
    const initializer = await get('/docs/static/swagger-initializer.js');
    assert.equal(initializer.statusCode, 200);
    const logo = /img\.src = 'data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)'/.exec(initializer.body);
    assert.ok(logo, 'a logo of our own');
    const svg = Buffer.from(logo[1] as string, 'base64').toString('utf8');
    assert.match(svg, />paytrack</);
    assert.ok(svg.includes(`v${VERSION}`), svg);
    const fastifyLogo = fs.readFileSync(
      new URL('../../node_modules/@fastify/swagger-ui/static/logo.svg', import.meta.url),
    );
    assert.ok(!initializer.body.includes(fastifyLogo.toString('base64')), 'no Fastify logo');
    assert.match(initializer.body, /img\.href = '\/'/);
  });

  test("the document keeps the contract's version 1.0.0 and gives the server's version beside it", async () => {
    const doc = (await get('/api/v1/openapi.json')).json();
    assert.equal(doc.info.title, 'paytrack API');
    assert.equal(doc.info.version, '1.0.0');
    assert.equal(doc.info['x-server-version'], VERSION);
    assert.ok(doc.info.description.startsWith(`**Server: paytrack ${VERSION}**`), doc.info.description);
    const served = (await get('/docs/json')).json();
    assert.equal(served.info['x-server-version'], VERSION);
  });
});
