import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';
import { type RawResponse, rawRequest } from '../helpers/raw-http.js';

/**
 * Every answer the API writes carries `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`: successes,
 * every kind of error, and the errors met before a route is found or by Node's HTTP parser.
 */

let t: TestApp;
/** A real socket with short timeouts and a low rate limit, for what only a raw connection shows. */
let raw: TestApp;
let port: number;
before(async () => {
  t = await buildTestApp();
  raw = await buildTestApp({
    env: { RATE_LIMIT_PER_MINUTE: '2' },
    http: { headersTimeoutMs: 500, requestTimeoutMs: 800 },
  });
  await raw.app.listen({ port: 0, host: '127.0.0.1' });
  port = (raw.app.server.address() as AddressInfo).port;
});
after(async () => {
  await raw.close();
  await t.close();
});

/** An answer from inject, the test client or a raw socket. */
interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body?: unknown;
}

function assertHeaders(name: string, res: Answer, status: number, code?: string): void {
  assert.equal(res.status, status, `${name}: ${JSON.stringify(res.body)}`);
  assert.equal(res.headers['cache-control'], 'no-store', `${name}: Cache-Control`);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', `${name}: X-Content-Type-Options`);
  if (code) {
    const body = typeof res.body === 'string' ? JSON.parse(res.body) : res.body;
    assert.equal(body.error.code, code, name);
    assert.equal(typeof body.request_id, 'string', name);
    assert.match(String(res.headers['content-type']), /^application\/json/, name);
  }
}

const rawGet = (path: string, headers = 'Host: x\r\n') =>
  `GET ${path} HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`;

describe('Cache-Control: no-store and X-Content-Type-Options: nosniff', () => {
  test('on successes', async () => {
    const ws = await newWorkspace(t);
    const anonymous = client(t, null);
    assertHeaders('GET /account', await ws.api.get('/account'), 200);
    assertHeaders(
      'POST /customers',
      await ws.api.post('/customers', { name: 'Ada', phone: '+2348031234567' }),
      201,
    );
    assertHeaders('GET /openapi.json', await anonymous.get('/api/v1/openapi.json'), 200);
    const health = await t.app.inject({ method: 'GET', url: '/health' });
    assertHeaders('GET /health', { status: health.statusCode, headers: health.headers }, 200);
  });

  test('on a URL that cannot be decoded, wherever it points, and on a path parameter past the router limit', async () => {
    const ws = await newWorkspace(t);
    const anonymous = client(t, null);
    for (const path of ['/api/v1/tracks/%ff', '/api/v1/%E0%A4%A', '/%ff', '/nowhere/%ff']) {
      assertHeaders(`${path} with a key`, await ws.api.get(path), 422, 'validation_error');
      assertHeaders(`${path} without`, await anonymous.get(path), 422, 'validation_error');
    }
    assertHeaders(
      'a long id',
      await ws.api.get(`/api/v1/tracks/${'a'.repeat(9_000)}`),
      422,
      'validation_error',
    );
    assertHeaders('raw %ff', await rawRequest(port, [rawGet('/api/v1/tracks/%ff')]), 422, 'validation_error');
  });

  test('on routing errors: 404 and 405, with a key, without and outside the API', async () => {
    const ws = await newWorkspace(t);
    const anonymous = client(t, null);
    assertHeaders('404 keyed', await ws.api.get('/nowhere'), 404, 'route_not_found');
    assertHeaders('404 without a key', await anonymous.get('/nowhere'), 404, 'route_not_found');
    assertHeaders('404 outside the API', await anonymous.get('/elsewhere'), 404, 'route_not_found');
    assertHeaders('405', await ws.api.request('PUT', '/customers', {}), 405, 'method_not_allowed');
    const options = await t.app.inject({ method: 'OPTIONS', url: '/api/v1/customers' });
    assertHeaders('OPTIONS', { status: options.statusCode, headers: options.headers }, 405);
  });

  test('on bodies refused before the handler: 413, 415, 400 invalid_json, 422', async () => {
    const ws = await newWorkspace(t);
    assertHeaders(
      '413',
      await ws.api.post('/customers', { name: 'x', notes: 'a'.repeat(1024 * 1024) }),
      413,
      'payload_too_large',
    );
    assertHeaders(
      '415',
      await ws.api.post('/customers', 'name=x', { 'content-type': 'text/plain' }),
      415,
      'unsupported_media_type',
    );
    assertHeaders('400 json', await ws.api.post('/customers', '{"name":'), 400, 'invalid_json');
    assertHeaders('422 body', await ws.api.post('/customers', { nam: 'x' }), 422, 'validation_error');
    assertHeaders('422 query', await ws.api.get('/customers?limit=0'), 422, 'validation_error');
  });

  test('on errors of the hooks: 401, 403, an Idempotency-Key reused, and errors of the service', async () => {
    const ws = await newWorkspace(t);
    assertHeaders('401', await client(t, null).get('/customers'), 401, 'unauthorized');
    assertHeaders('401 bad key', await client(t, 'pt_test_nope').get('/customers'), 401, 'unauthorized');
    const reader = await newKey(t, ws.workspaceId, { scopes: ['customers:read'] });
    assertHeaders(
      '403',
      await reader.api.post('/customers', { name: 'x', phone: '+2348031234567' }),
      403,
      'forbidden',
    );
    const key = { 'idempotency-key': 'headers-test-1' };
    await ws.api.post('/customers', { name: 'Ada', phone: '+2348031234567' }, key);
    assertHeaders(
      'idempotency key reused',
      await ws.api.post('/customers', { name: 'Bola', phone: '+2348031234567' }, key),
      422,
      'idempotency_key_reused',
    );
    assertHeaders(
      '404 record',
      await ws.api.get('/customers/cus_01J00000000000000000000000'),
      404,
      'not_found',
    );
    const payment = await newPayment(ws.api, (await newTrack(ws.api)).id);
    await ws.api.post(`/payments/${payment.id}/reverse`, { reason: 'Bounced' });
    assertHeaders(
      '409',
      await ws.api.post(`/payments/${payment.id}/reverse`, { reason: 'Bounced' }),
      409,
      'invalid_state',
    );
  });

  test('on 429 from the rate limit', async () => {
    const { testKey } = await newWorkspace(raw);
    let limited: RawResponse | undefined;
    for (let i = 0; i < 5 && !limited; i++) {
      const res = await rawRequest(port, [
        rawGet('/api/v1/account', `Host: x\r\nAuthorization: Bearer ${testKey}\r\n`),
      ]);
      if (res.status === 429) limited = res;
      else assertHeaders('under the limit', res, 200);
    }
    assert.ok(limited, 'the limit was reached');
    assertHeaders('429', limited, 429, 'rate_limited');
  });

  test("on what Node's HTTP parser refuses: 431, a malformed request line, a missing Host, a slow body", async () => {
    assertHeaders(
      '431',
      await rawRequest(port, [
        `GET /api/v1/customers HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      ]),
      431,
      'headers_too_large',
    );
    assertHeaders('400 request line', await rawRequest(port, ['GARBAGE\r\n\r\n']), 400, 'bad_request');
    assertHeaders(
      '400 no Host',
      await rawRequest(port, ['GET /api/v1/customers HTTP/1.1\r\nConnection: close\r\n\r\n']),
      400,
      'bad_request',
    );
    const { testKey } = await newWorkspace(raw);
    assertHeaders(
      '408',
      await rawRequest(port, [
        `POST /api/v1/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${testKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`,
      ]),
      408,
      'request_timeout',
    );
  });

  test('an HTTP/1.0 request needs no Host', async () => {
    const res = await rawRequest(port, ['GET /health HTTP/1.0\r\n\r\n']);
    assertHeaders('HTTP/1.0', res, 200);
  });

  test('on 500 internal_error when the database is gone', async () => {
    const broken = await buildTestApp();
    const ws = await newWorkspace(broken);
    await broken.handle.close();
    try {
      assertHeaders('500', await ws.api.get('/customers'), 500, 'internal_error');
    } finally {
      await broken.app.close();
      await broken.database.drop();
    }
  });

  test('on 503 to a request that comes while the server shuts down', async () => {
    const closing = await buildTestApp();
    await closing.app.listen({ port: 0, host: '127.0.0.1' });
    const closingPort = (closing.app.server.address() as AddressInfo).port;
    const { testKey } = await newWorkspace(closing);
    try {
      // A request whose body is still coming keeps the connection busy while the server starts to close; the
      // request pipelined after it comes during the shutdown.
      const answered = rawRequest(closingPort, [
        `POST /api/v1/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${testKey}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{`,
        { pauseMs: 300 },
        '}GET /health HTTP/1.1\r\nHost: x\r\n\r\n',
      ]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const closed = closing.app.close();
      const res = await answered;
      await closed;
      const [first, second] = res.body.split(/\r\n\r\n|HTTP\/1\.1 /).filter((part) => part.startsWith('{'));
      assert.equal(res.status, 422, res.body);
      assert.equal(JSON.parse(first ?? '{}').error?.code, 'validation_error', res.body);
      const shutdown = /HTTP\/1\.1 503[\s\S]*?\r\n\r\n/.exec(res.body);
      assert.ok(shutdown, res.body);
      assert.match(shutdown[0], /cache-control: no-store/i);
      assert.match(shutdown[0], /x-content-type-options: nosniff/i);
      assert.equal(JSON.parse(second ?? '{}').error?.code, 'service_unavailable', res.body);
    } finally {
      await closing.handle.close();
      await closing.database.drop();
    }
  });
});
