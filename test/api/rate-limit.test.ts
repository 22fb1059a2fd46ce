import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ApiResponse, client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newKey, newWorkspace } from '../helpers/factories.js';

// The limit of the workspace's plan is checked in account.test.ts, on an app without the override.
let t: TestApp;

before(async () => {
  t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
});

after(async () => {
  await t.close();
});

function assertLimitHeaders(res: ApiResponse, remaining: number) {
  assert.equal(res.headers['x-ratelimit-limit'], '3');
  assert.equal(res.headers['x-ratelimit-remaining'], String(remaining));
  const reset = Number(res.headers['x-ratelimit-reset']);
  assert.ok(
    Number.isInteger(reset) && reset >= 0 && reset <= 60,
    `reset ${res.headers['x-ratelimit-reset']}`,
  );
}

test('every keyed response carries the limit headers, and the 4th request a minute is 429 rate_limited', async () => {
  const ws = await newWorkspace(t);
  const key = await newKey(t, ws.workspaceId);

  const success = await key.api.get('/account');
  assert.equal(success.status, 200);
  assertLimitHeaders(success, 2);

  const missing = await key.api.get('/customers/cus_01J00000000000000000000000');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, 'not_found');
  assertLimitHeaders(missing, 1);

  const invalid = await key.api.post('/customers', { nam: 'x' });
  assert.equal(invalid.status, 422);
  assertLimitHeaders(invalid, 0);

  const limited = await key.api.get('/account');
  assert.equal(limited.status, 429);
  assert.equal(limited.body.success, false);
  assert.equal(limited.body.error.code, 'rate_limited');
  assert.equal(typeof limited.body.error.message, 'string');
  assert.equal(limited.body.request_id, limited.headers['x-request-id']);
  assertLimitHeaders(limited, 0);
  const retryAfter = Number(limited.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `retry-after ${retryAfter}`);

  // Still limited, on every route and method.
  const write = await key.api.post('/customers', { name: 'Ada', phone: '+2348031234567' });
  assert.equal(write.status, 429);
  assert.equal(write.body.error.code, 'rate_limited');
});

test('RATE_LIMIT_PER_MINUTE overrides the plan, as the subscription shows', async () => {
  const ws = await newWorkspace(t);
  const res = await ws.api.get('/account/subscription');
  assert.equal(res.body.data.plan.rateLimitPerMinute, 600);
  assert.equal(res.body.data.effectiveRateLimitPerMinute, 3);
});

test('limits are per key: another key of the same workspace still passes', async () => {
  const ws = await newWorkspace(t);
  const first = await newKey(t, ws.workspaceId);
  const second = await newKey(t, ws.workspaceId);
  for (let i = 0; i < 3; i++) assert.equal((await first.api.get('/account')).status, 200);
  assert.equal((await first.api.get('/account')).status, 429);

  const other = await second.api.get('/account');
  assert.equal(other.status, 200);
  assertLimitHeaders(other, 2);
  assert.equal((await ws.live.get('/account')).status, 200);
});

test('requests refused for lack of scope count against the limit', async () => {
  const ws = await newWorkspace(t);
  const key = await newKey(t, ws.workspaceId, { scopes: ['tracks:read'] });
  const forbidden = await key.api.get('/account');
  assert.equal(forbidden.status, 403);
  assertLimitHeaders(forbidden, 2);
  await key.api.get('/tracks');
  await key.api.get('/tracks');
  assert.equal((await key.api.get('/tracks')).status, 429);
});

test('requests without a valid key are answered 401 and are not counted against any key', async () => {
  const ws = await newWorkspace(t);
  const anonymous = client(t, null);
  for (let i = 0; i < 5; i++) {
    const res = await anonymous.get('/account');
    assert.equal(res.status, 401);
    assert.equal(res.headers['x-ratelimit-limit'], undefined);
  }
  const keyed = await ws.api.get('/account');
  assert.equal(keyed.status, 200);
  assertLimitHeaders(keyed, 2);
});
