import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newWorkspace } from '../helpers/factories.js';

// Two nodes on one database and one Redis (REDIS_URL), as several API nodes behind a load balancer.
const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
let first: TestApp;
let second: TestApp;

before(async () => {
  first = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '4', REDIS_URL } });
  second = await buildTestApp({ database: first.database, env: { RATE_LIMIT_PER_MINUTE: '4', REDIS_URL } });
});

after(async () => {
  await second.close({ drop: false });
  await first.close();
});

test('nodes sharing Redis count one limit per key between them', async () => {
  const ws = await newWorkspace(first);
  const onFirst = client(first, ws.testKey);
  const onSecond = client(second, ws.testKey);

  const remaining: string[] = [];
  for (const api of [onFirst, onSecond, onFirst, onSecond]) {
    const res = await api.get('/account');
    assert.equal(res.status, 200);
    remaining.push(String(res.headers['x-ratelimit-remaining']));
  }
  assert.deepEqual(remaining, ['3', '2', '1', '0']);

  const limited = await onFirst.get('/account');
  assert.equal(limited.status, 429);
  assert.equal(limited.body.error.code, 'rate_limited');
  assert.ok(Number(limited.headers['retry-after']) > 0);
  assert.equal((await onSecond.get('/account')).status, 429);

  const otherKey = client(second, ws.liveKey);
  assert.equal((await otherKey.get('/account')).status, 200, 'each key has its own count');
});

test('the consent page limits an address across the nodes that share Redis', async () => {
  // An address of its own, so that counts left in Redis by an earlier run do not matter.
  const address = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.7`;
  const open = (t: TestApp) =>
    t.app.inject({ method: 'GET', url: `/consent/ct_${'x'.repeat(43)}`, remoteAddress: address });
  for (let i = 0; i < 30; i++) {
    const res = await open(i % 2 === 0 ? first : second);
    assert.equal(res.statusCode, 404, `request ${i + 1}`);
  }
  const limited = await open(first);
  assert.equal(limited.statusCode, 429);
  assert.match(String(limited.headers['content-type']), /text\/html/);
  assert.equal((await open(second)).statusCode, 429);
});
