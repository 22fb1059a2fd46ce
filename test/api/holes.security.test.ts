import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { type ApiResponse, client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';
import { rawRequest } from '../helpers/raw-http.js';

let t: TestApp;
/** The same service listening on a real socket, with short timeouts, for what only a raw connection shows. */
let raw: TestApp;
let port: number;
before(async () => {
  t = await buildTestApp();
  raw = await buildTestApp({ http: { headersTimeoutMs: 500, requestTimeoutMs: 800 } });
  port = await listening(raw);
});
after(async () => {
  await raw.close();
  await t.close();
});

function assertFieldError(res: ApiResponse, field: string): void {
  assert.equal(res.status, 422, JSON.stringify(res.body));
  assert.equal(res.body.success, false);
  assert.equal(res.body.error.code, 'validation_error');
  assert.ok(
    Object.hasOwn(res.body.error.details.fields, field),
    `${field} named in ${JSON.stringify(res.body.error.details.fields)}`,
  );
  assert.equal(typeof res.body.request_id, 'string');
}

async function listening(app: TestApp): Promise<number> {
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  return (app.app.server.address() as AddressInfo).port;
}

function assertEnvelope(
  raw: { status: number; headers: Record<string, string>; body: string },
  status: number,
) {
  assert.equal(raw.status, status, raw.body);
  const body = JSON.parse(raw.body);
  assert.equal(body.success, false);
  assert.equal(typeof body.error.code, 'string');
  assert.equal(typeof body.request_id, 'string');
  assert.equal(raw.headers['x-request-id'], body.request_id);
  return body;
}

describe('1. NUL characters, lone surrogates and instants out of range are refused, naming the field', () => {
  test('in bodies: names, metadata values and keys, references', async () => {
    const { api } = await newWorkspace(t);
    assertFieldError(await api.post('/customers', { name: 'Ada\u0000Obi', phone: '+2348031234567' }), 'name');
    assertFieldError(
      await api.post('/customers', '{"name":"Ada \\ud800 Obi","phone":"+2348031234567"}'),
      'name',
    );
    assertFieldError(
      await api.post('/customers', { name: 'Ada', phone: '+2348031234567', metadata: { note: 'a\u0000b' } }),
      'metadata.note',
    );
    assertFieldError(
      await api.post('/customers', '{"name":"Ada","phone":"+2348031234567","metadata":{"k\\udc00":"v"}}'),
      'metadata',
    );
    const plan = await newTrack(api);
    assertFieldError(
      await api.post('/payments', { trackId: plan.id, amount: 10, reference: 'REF\u00001' }),
      'reference',
    );
    assert.equal((await api.get('/customers')).body.data.items.length, 1, 'nothing was created');
  });

  test('in path ids, filters and cursors', async () => {
    const { api } = await newWorkspace(t);
    assertFieldError(await api.get('/tracks/trk_%00'), 'id');
    // A CESU-encoded surrogate is not even a valid URL: the path is named.
    assertFieldError(await api.get('/customers/cus_%ED%A0%80'), 'path');
    assertFieldError(await api.get('/customers?q=a%00b'), 'q');
    assertFieldError(await api.get('/payments?trackId=%00'), 'trackId');
    const cursor = Buffer.from(JSON.stringify({ v: 1, id: 'cus_\u0000' })).toString('base64url');
    assertFieldError(await api.get(`/customers?cursor=${cursor}`), 'cursor');
  });

  test('instants before 1970 or after 9999, and calendar dates likewise', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api);
    for (const paidAt of ['0000-01-01T00:00:00Z', '0049-06-01T00:00:00Z', '1969-12-31T23:59:59Z']) {
      assertFieldError(await api.post('/payments', { trackId: plan.id, amount: 10, paidAt }), 'paidAt');
    }
    assertFieldError(await api.get('/payments?from=0049-01-01T00:00:00Z'), 'from');
    assertFieldError(await api.get('/ledger?to=0001-01-01T00:00:00Z'), 'to');
    assertFieldError(await api.patch(`/tracks/${plan.id}`, { dueDate: '0001-01-01' }), 'dueDate');
    const ok = await api.post('/payments', { trackId: plan.id, amount: 10, paidAt: '1970-01-01T00:00:00Z' });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.data.paidAt, '1970-01-01T00:00:00.000Z');
  });
});

describe('2. every answer the service writes uses the envelope', () => {
  test('a malformed percent-encoding in the path is 422 naming the path', async () => {
    const { api } = await newWorkspace(t);
    const res = await api.get('/tracks/%ff');
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'validation_error');
    assert.ok(res.body.error.details.fields.path);
    assert.equal(res.headers['x-request-id'], res.body.request_id);
  });

  test('a long id is the same validation_error at any length', async () => {
    const { api } = await newWorkspace(t);
    for (const length of [65, 100, 101, 500])
      assertFieldError(await api.get(`/tracks/${'a'.repeat(length)}`), 'id');
  });

  test('oversized headers are 431 in the envelope', async () => {
    const res = await rawRequest(port, [
      `GET /api/v1/customers HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ]);
    const body = assertEnvelope(res, 431);
    assert.equal(body.error.code, 'headers_too_large');
  });

  test('a malformed request line is 400 in the envelope', async () => {
    const res = await rawRequest(port, ['GARBAGE\r\n\r\n']);
    const body = assertEnvelope(res, 400);
    assert.equal(body.error.code, 'bad_request');
  });
});

describe('3. keyed 404 and 405 are limited and counted; failed authentication is limited per address', () => {
  test('a keyed unknown route or method carries the rate-limit headers and counts as usage', async () => {
    const { api } = await newWorkspace(t);
    const missing = await api.get('/no-such-thing');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'route_not_found');
    assert.ok(missing.headers['x-ratelimit-limit']);
    assert.ok(missing.headers['x-ratelimit-remaining']);
    const wrongMethod = await api.request('PUT', '/customers', {});
    assert.equal(wrongMethod.status, 405);
    assert.ok(wrongMethod.headers['x-ratelimit-remaining']);
    assert.ok(
      Number(wrongMethod.headers['x-ratelimit-remaining']) < Number(missing.headers['x-ratelimit-remaining']),
    );
    const usage = await api.get('/account/usage');
    assert.equal(usage.body.data.totals.errors, 2);
  });

  test('an unknown route without a key is still 404', async () => {
    const res = await client(t, null).get('/no-such-thing');
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'route_not_found');
  });

  test('failed authentications from one address are limited, and a good key still works', async () => {
    const limited = await buildTestApp({ env: { FAILED_AUTH_PER_MINUTE: '5' } });
    try {
      const { testKey } = await newWorkspace(limited);
      const bad = client(limited, `pt_test_${'x'.repeat(32)}`);
      const answers = [];
      for (let i = 0; i < 7; i++) answers.push(await bad.get('/customers'));
      assert.deepEqual(
        answers.map((r) => r.status),
        [401, 401, 401, 401, 401, 429, 429],
      );
      const refused = answers[6] as ApiResponse;
      assert.equal(refused.body.error.code, 'rate_limited');
      assert.ok(Number(refused.headers['retry-after']) > 0);
      assert.ok(refused.headers['x-ratelimit-limit']);
      assert.equal((await client(limited, testKey).get('/customers')).status, 200);
    } finally {
      await limited.close();
    }
  });
});

describe('4. unknown fields named like Object.prototype members are named too', () => {
  test('__proto__, constructor and toString', async () => {
    const { api } = await newWorkspace(t);
    for (const field of ['__proto__', 'constructor', 'toString']) {
      const res = await api.post('/customers', `{"name":"A","phone":"+2348031234567","${field}":{"x":1}}`);
      assertFieldError(res, field);
      assert.equal(res.body.error.details.fields[field], 'is not an accepted field');
    }
  });
});

describe('5. ambiguous credentials are refused', () => {
  test('two Authorization headers are 401, whichever comes first', async () => {
    const { testKey } = await newWorkspace(raw);
    const other = `pt_test_${'y'.repeat(32)}`;
    for (const [first, second] of [
      [testKey, other],
      [other, testKey],
      [testKey, testKey],
    ]) {
      const res = await rawRequest(port, [
        `GET /api/v1/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${first}\r\nAuthorization: Bearer ${second}\r\nConnection: close\r\n\r\n`,
      ]);
      const body = assertEnvelope(res, 401);
      assert.equal(body.error.code, 'unauthorized');
      assert.match(body.error.message, /one Authorization header/);
    }
  });
});

describe('6. metadata keys are 1 to 40 characters', () => {
  test('a long key and an empty key are refused', async () => {
    const { api } = await newWorkspace(t);
    for (const key of ['k'.repeat(41), 'k'.repeat(5_000), '']) {
      assertFieldError(
        await api.post('/customers', { name: 'A', phone: '+2348031234567', metadata: { [key]: 'v' } }),
        'metadata',
      );
    }
    const fine = await api.post('/customers', {
      name: 'A',
      phone: '+2348031234567',
      metadata: { ['k'.repeat(40)]: 'v' },
    });
    assert.equal(fine.status, 201);
  });
});

describe('7. references are compared normalised and stored as sent', () => {
  test('case, spaces, invisible characters and compatibility forms do not make a new reference', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 100_000 });
    const first = await newPayment(api, plan.id, { amount: 100, reference: 'BANK-REF-777' });
    assert.equal(first.reference, 'BANK-REF-777');
    for (const reference of [
      'bank-ref-777',
      ' BANK-REF-777',
      'BANK-REF-777\u200b',
      'ＢＡＮＫ－ＲＥＦ－７７７',
      'Bank-Ref-777 ',
    ]) {
      assertFieldError(
        await api.post('/payments', { trackId: plan.id, amount: 100, reference }),
        'reference',
      );
    }
    const other = await newPayment(api, plan.id, { amount: 100, reference: 'BANK-REF-778' });
    assert.equal(other.reference, 'BANK-REF-778');
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 100_000 - 200);
  });

  test('two requests with equivalent new references at once record one payment', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 100_000 });
    const results = await Promise.all(
      ['TRF-9', 'trf-9', ' TRF-9', 'TRF-9\u200d'].map((reference) =>
        api.post('/payments', { trackId: plan.id, amount: 5, reference }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 201).length, 1);
    for (const refused of results.filter((r) => r.status !== 201)) assertFieldError(refused, 'reference');
  });
});

describe('8. nothing secret reaches the log', () => {
  test('a key in the query string, the Authorization header and the Idempotency-Key are not logged', async () => {
    let logged = '';
    const logs = new Writable({
      write(chunk, _encoding, done) {
        logged += chunk.toString();
        done();
      },
    });
    const logging = await buildTestApp({ logger: { level: 'trace', stream: logs } });
    try {
      const { testKey, api } = await newWorkspace(logging);
      const keyed = client(logging, null);
      await keyed.get(`/customers?api_key=${testKey}&limit=5`);
      await keyed.get(`/customers?token=${testKey}`);
      await api.post(
        '/customers',
        { name: 'Ada', phone: '+2348031234567' },
        { 'idempotency-key': 'secret-idem' },
      );
      const created = await api.post('/webhooks', { url: 'http://127.0.0.1:9/hooks' });
      assert.ok(logged.includes('/api/v1/customers'), 'requests are logged');
      assert.ok(!logged.includes(testKey), 'no API key in the log');
      assert.ok(!logged.includes('secret-idem'));
      assert.ok(!logged.includes(created.body.data.secret), 'no webhook secret in the log');
    } finally {
      await logging.close();
    }
  });
});

describe('9. /metrics', () => {
  test('needs METRICS_TOKEN when it is set, and shows the job queue and deliveries', async () => {
    const guarded = await buildTestApp({ env: { METRICS_TOKEN: 'scrape-me-0123456789' } });
    try {
      const anonymous = await guarded.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(anonymous.statusCode, 401);
      assert.equal(JSON.parse(anonymous.body).error.code, 'unauthorized');
      const wrong = await guarded.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer nope' },
      });
      assert.equal(wrong.statusCode, 401);
      const scraped = await guarded.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer scrape-me-0123456789' },
      });
      assert.equal(scraped.statusCode, 200);
      for (const name of [
        'paytrack_jobs',
        'paytrack_job_oldest_due_seconds',
        'paytrack_events_undispatched',
        'paytrack_webhook_delivery_attempts',
      ]) {
        assert.match(scraped.body, new RegExp(`^${name}`, 'm'), name);
      }
    } finally {
      await guarded.close();
    }
  });
});

describe('10. API answers are never cached or sniffed', () => {
  test('success, error, not found and the answer that carries a webhook secret', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    for (const res of [
      await api.get(`/customers/${customer.id}`),
      await api.post('/webhooks', { url: 'http://127.0.0.1:9/hooks' }),
      await api.get('/customers/cus_missing'),
      await api.get('/nowhere'),
      await client(t, null).get('/customers'),
    ]) {
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
    }
  });
});

describe('12. slow clients are cut off', () => {
  test('a body that never finishes is answered 408 in the envelope and the connection closed', async () => {
    const { testKey } = await newWorkspace(raw);
    const res = await rawRequest(port, [
      `POST /api/v1/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${testKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`,
    ]);
    const body = assertEnvelope(res, 408);
    assert.equal(body.error.code, 'request_timeout');
    assert.ok(res.elapsedMs < 4_000, `closed after ${Math.round(res.elapsedMs)} ms`);
  });

  test('headers that never finish are cut off too', async () => {
    const res = await rawRequest(port, [
      'GET /api/v1/customers HTTP/1.1\r\nHost: x\r\n',
      { pauseMs: 100 },
      'X-Slow: 1\r\n',
    ]);
    assert.ok(res.elapsedMs < 4_000, `closed after ${Math.round(res.elapsedMs)} ms`);
    if (res.status !== 0) assertEnvelope(res, 408);
  });
});
