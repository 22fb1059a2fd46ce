import type { FastifyInstance } from 'fastify';
import { API_VERSION, SERVER_VERSION } from '../version.js';
import { escapeHtml, PAGE_HEADERS, page } from './html-page.js';

/** What `GET /` shows: what this server is, its version, and where to go (no script, nothing from elsewhere). */
export function homePage(): string {
  return page(
    `paytrack ${SERVER_VERSION}`,
    `<h1>paytrack</h1>
<p>Records and collects money a business is owed: customers, payment plans, payments, an append-only ledger,
collection schedules, reminders, reports and signed webhooks, through a JSON HTTP API.</p>
<dl><dt>Server</dt><dd>paytrack ${escapeHtml(SERVER_VERSION)}</dd><dt>API</dt><dd>v1 (contract ${escapeHtml(API_VERSION)}) under <code>/api/v1</code></dd></dl>
<ul>
<li><a href="/docs">API reference</a>: every operation, its fields and examples</li>
<li><a href="/api/v1/openapi.json">OpenAPI document</a> (JSON, OpenAPI 3.1), to generate a client</li>
<li><a href="/health">Health</a>: 200 when the database answers</li>
</ul>
<p class="note">API requests send <code>Authorization: Bearer &lt;API key&gt;</code>; <code>paytrack key create</code> makes a key.</p>`,
  );
}

/** `GET /` and `HEAD /`: the page above, with the strict headers of every page. */
export function registerHomePage(app: FastifyInstance): void {
  const html = homePage();
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.headers(PAGE_HEADERS).send(html));
}
