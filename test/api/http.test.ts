import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { revokeKey } from '../../src/modules/api-keys/api-keys.service.js';
import { type ApiResponse, client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newKey, newWorkspace } from '../helpers/factories.js';

let t: TestApp;

before(async () => {
  t = await buildTestApp();
});

after(async () => {
  await t.close();
});

const GENERATED_ID = /^req_[0-9A-HJKMNP-TV-Z]{26}$/;

/** A request outside /api/v1, without a key. */
async function root(url: string, headers: Record<string, string> = {}) {
  const res = await t.app.inject({ method: 'GET', url, headers });
  const json = /^application\/json/.test(String(res.headers['content-type']));
  return { status: res.statusCode, headers: res.headers, body: json ? res.json() : res.body } as ApiResponse;
}

function assertError(res: ApiResponse, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.success, false);
  assert.equal(res.body.error.code, code);
  assert.equal(typeof res.body.error.message, 'string');
  assert.ok(res.body.error.message.length > 0);
  assert.equal(typeof res.body.request_id, 'string');
  assert.equal(res.headers['x-request-id'], res.body.request_id);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.equal('data' in res.body, false);
}

describe('envelope and request ids', () => {
  test('a success is { success, data, request_id } and the id is also the X-Request-Id header', async () => {
    const ws = await newWorkspace(t);
    const res = await ws.api.get('/account');
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'request_id', 'success']);
    assert.equal(res.body.success, true);
    assert.match(res.body.request_id, GENERATED_ID);
    assert.equal(res.headers['x-request-id'], res.body.request_id);
  });

  test('an error is { success: false, error: { code, message, details? }, request_id }', async () => {
    const ws = await newWorkspace(t);
    const res = await ws.api.get('/customers/cus_01J00000000000000000000000');
    assertError(res, 404, 'not_found');
    assert.deepEqual(Object.keys(res.body).sort(), ['error', 'request_id', 'success']);
    assert.match(res.body.request_id, GENERATED_ID);
  });

  test('every request gets its own id', async () => {
    const ws = await newWorkspace(t);
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await ws.api.get('/account')).body.request_id);
    assert.equal(ids.size, 5);
  });

  test('a well-formed incoming X-Request-Id is reused, on success and on error', async () => {
    const ws = await newWorkspace(t);
    const long = 'a'.repeat(128);
    for (const id of ['abc.DEF-1_2', 'trace-7f3a9c', long]) {
      const res = await ws.api.get('/account', { 'x-request-id': id });
      assert.equal(res.status, 200);
      assert.equal(res.body.request_id, id);
      assert.equal(res.headers['x-request-id'], id);
    }
    const failed = await client(t, null).get('/account', { 'x-request-id': 'upstream.42' });
    assertError(failed, 401, 'unauthorized');
    assert.equal(failed.body.request_id, 'upstream.42');
    const missing = await root('/nowhere', { 'x-request-id': 'upstream.43' });
    assertError(missing, 404, 'route_not_found');
    assert.equal(missing.body.request_id, 'upstream.43');
  });

  test('a malformed incoming X-Request-Id is replaced by a generated one', async () => {
    const ws = await newWorkspace(t);
    for (const id of ['bad id', 'a/b', 'x'.repeat(129), '<script>', 'é']) {
      const res = await ws.api.get('/account', { 'x-request-id': id });
      assert.equal(res.status, 200);
      assert.match(res.body.request_id, GENERATED_ID, id);
      assert.equal(res.headers['x-request-id'], res.body.request_id);
    }
  });
});

describe('routing errors', () => {
  test('an unknown path is 404 route_not_found, with or without a key', async () => {
    const ws = await newWorkspace(t);
    for (const api of [ws.api, client(t, null)]) {
      assertError(await api.get('/api/v1/nowhere'), 404, 'route_not_found');
      assertError(await api.get('/api/v1/customers/cus_1/unknown'), 404, 'route_not_found');
      assertError(await api.post('/api/v2/customers', { name: 'x' }), 404, 'route_not_found');
    }
    assertError(await root('/nowhere'), 404, 'route_not_found');
  });

  test('a known path with another method is 405 method_not_allowed with an Allow header', async () => {
    const ws = await newWorkspace(t);
    const res = await ws.api.request('PUT', '/customers', { name: 'x' });
    assertError(res, 405, 'method_not_allowed');
    assert.deepEqual(String(res.headers.allow).split(', ').sort(), ['GET', 'POST']);
    assert.deepEqual([...res.body.error.details.allowed].sort(), ['GET', 'POST']);

    const one = await ws.api.request('PUT', '/customers/cus_01J00000000000000000000000', { name: 'x' });
    assertError(one, 405, 'method_not_allowed');
    assert.deepEqual(String(one.headers.allow).split(', ').sort(), ['DELETE', 'GET', 'PATCH']);

    const account = await ws.api.delete('/account');
    assertError(account, 405, 'method_not_allowed');
    assert.deepEqual(String(account.headers.allow).split(', ').sort(), ['GET', 'PATCH']);

    assertError(await client(t, null).request('PUT', '/customers', {}), 405, 'method_not_allowed');
  });
});

describe('request bodies', () => {
  test('a body over 1 MiB is 413 payload_too_large', async () => {
    const ws = await newWorkspace(t);
    const res = await ws.api.post('/customers', {
      name: 'x',
      phone: '+2348031234567',
      notes: 'a'.repeat(1024 * 1024),
    });
    assertError(res, 413, 'payload_too_large');
  });

  test('a body that is not application/json is 415 unsupported_media_type', async () => {
    const ws = await newWorkspace(t);
    const text = await ws.api.post('/customers', 'name=x', { 'content-type': 'text/plain' });
    assertError(text, 415, 'unsupported_media_type');
    const form = await ws.api.post('/customers', 'name=x', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    assertError(form, 415, 'unsupported_media_type');
  });

  test('JSON with a charset parameter is accepted', async () => {
    const ws = await newWorkspace(t);
    const res = await ws.api.post(
      '/customers',
      { name: 'Ada', phone: '+2348031234567' },
      { 'content-type': 'application/json; charset=utf-8' },
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
  });

  test('broken JSON, and JSON that is not an object, is 400 invalid_json', async () => {
    const ws = await newWorkspace(t);
    for (const body of ['{"name": "x"', '{name: 1}', '[{"name":"x"}]', '[]', 'null', '"text"', '42']) {
      assertError(await ws.api.post('/customers', body), 400, 'invalid_json');
    }
  });
});

describe('validation', () => {
  test('unknown and missing fields are each named in details.fields', async () => {
    const ws = await newWorkspace(t);
    const res = await ws.api.post('/customers', { nam: 'x' });
    assertError(res, 422, 'validation_error');
    assert.deepEqual(res.body.error.details.fields, {
      nam: 'is not an accepted field',
      name: 'is required',
      phone: 'is required',
    });
  });

  test('an empty body names every required field', async () => {
    const ws = await newWorkspace(t);
    const res = await ws.api.post('/customers', '', { 'content-type': 'application/json' });
    assertError(res, 422, 'validation_error');
    assert.deepEqual(Object.keys(res.body.error.details.fields).sort(), ['name', 'phone']);
  });

  test('wrong types are refused, never coerced', async () => {
    const ws = await newWorkspace(t);
    const res = await ws.api.post('/customers', { name: 5, phone: true });
    assertError(res, 422, 'validation_error');
    assert.deepEqual(Object.keys(res.body.error.details.fields).sort(), ['name', 'phone']);
    assert.match(res.body.error.details.fields.name, /string/);

    const customer = await newCustomer(ws.api);
    const track = await ws.api.post('/tracks', { customerId: customer.id, title: 'Fridge', amount: '100' });
    assertError(track, 422, 'validation_error');
    assert.deepEqual(track.body.error.details.fields, { amount: 'must be an integer' });
    const tracks = await ws.api.get(`/tracks?customerId=${customer.id}`);
    assert.deepEqual(tracks.body.data.items, []);
  });

  test('bad query parameters are named too', async () => {
    const ws = await newWorkspace(t);
    const res = await ws.api.get('/customers?limit=0&colour=red');
    assertError(res, 422, 'validation_error');
    assert.deepEqual(Object.keys(res.body.error.details.fields).sort(), ['colour', 'limit']);
    const word = await ws.api.get('/customers?limit=ten');
    assertError(word, 422, 'validation_error');
    assert.deepEqual(Object.keys(word.body.error.details.fields), ['limit']);
  });
});

describe('authentication', () => {
  test('a missing key is 401 unauthorized', async () => {
    const res = await client(t, null).get('/account');
    assertError(res, 401, 'unauthorized');
  });

  test('a malformed key or header is 401 unauthorized', async () => {
    const ws = await newWorkspace(t);
    const headers = [
      `Basic ${ws.testKey}`,
      'Bearer',
      'Bearer ',
      `Bearer ${ws.testKey} extra`,
      'Bearer pt_test_short',
      `Bearer ${ws.testKey.replace('pt_test_', 'pt_prod_')}`,
      `Bearer ${ws.testKey.slice(0, -1)}!`,
      ws.testKey,
    ];
    for (const authorization of headers) {
      assertError(await client(t, null).get('/account', { authorization }), 401, 'unauthorized');
    }
  });

  test('an unknown key of the right form is 401 unauthorized', async () => {
    const ws = await newWorkspace(t);
    const unknown = `pt_test_${'A'.repeat(32)}`;
    assertError(await client(t, unknown).get('/account'), 401, 'unauthorized');
    // The mode is part of the key: a test key relabelled as live is not a key.
    assertError(
      await client(t, ws.testKey.replace('pt_test_', 'pt_live_')).get('/account'),
      401,
      'unauthorized',
    );
  });

  test('a revoked key is 401 unauthorized from the next request on', async () => {
    const ws = await newWorkspace(t);
    const key = await newKey(t, ws.workspaceId);
    assert.equal((await key.api.get('/account')).status, 200);
    await revokeKey(t.ctx, key.id);
    assertError(await key.api.get('/account'), 401, 'unauthorized');
    assertError(
      await key.api.post('/customers', { name: 'x', phone: '+2348031234567' }),
      401,
      'unauthorized',
    );
    assert.equal((await ws.api.get('/account')).status, 200);
  });
});

describe('public endpoints', () => {
  test('GET /health answers 200 without a key', async () => {
    const res = await root('/health');
    assert.equal(res.status, 200);
    assert.equal(res.body.success, true);
    assert.deepEqual(res.body.data, { status: 'ok', database: t.ctx.dialect });
    assert.equal(res.headers['x-request-id'], res.body.request_id);
  });

  test('GET /metrics serves Prometheus counters without a key', async () => {
    const ws = await newWorkspace(t);
    await ws.api.get('/account');
    const res = await root('/metrics');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    assert.match(res.body, /# TYPE paytrack_http_requests_total counter/);
    assert.match(
      res.body,
      /paytrack_http_requests_total\{method="GET",route="\/api\/v1\/account",status="200"\} \d+/,
    );
  });
});
