import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KEY_FRESH_MS } from '../../src/modules/api-keys/key-cache.js';
import { SUBSCRIPTION_PLANS } from '../../src/modules/workspaces/subscription-plans.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newKey, newWorkspace } from '../helpers/factories.js';

let t: TestApp;

before(async () => {
  t = await buildTestApp();
});

after(async () => {
  await t.close();
});

const DAY_MS = 24 * 60 * 60 * 1000;

function today(): string {
  return t.clock.now().toISOString().slice(0, 10);
}

function daysBefore(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);
}

describe('GET /account', () => {
  test('returns the workspace, the mode and the calling key', async () => {
    const ws = await newWorkspace(t, { currency: 'KES' });
    const key = await newKey(t, ws.workspaceId);
    const res = await key.api.get('/account');
    assert.equal(res.status, 200);
    const data = res.body.data;
    assert.deepEqual(Object.keys(data).sort(), [
      'apiKey',
      'brandColor',
      'contactPolicy',
      'country',
      'createdAt',
      'currency',
      'customerPage',
      'id',
      'lateFeeDefault',
      'livemode',
      'mode',
      'name',
      'receipts',
      'supportEmail',
      'supportPhone',
      'timeZone',
      'workspace',
    ]);
    assert.deepEqual(Object.keys(data.workspace).sort(), [
      'createdAt',
      'defaultCurrency',
      'id',
      'name',
      'timezone',
    ]);
    assert.equal(data.workspace.id, ws.workspaceId);
    assert.equal(data.workspace.name, 'Test workspace');
    assert.equal(data.workspace.defaultCurrency, 'KES');
    assert.equal(data.workspace.timezone, 'UTC');
    assert.match(data.workspace.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(data.mode, 'test');
    assert.equal(data.livemode, false);
    assert.deepEqual(data.apiKey, { id: key.id, prefix: key.key.slice(0, 12), scopes: 'all' });
  });

  test('a live key sees live mode', async () => {
    const ws = await newWorkspace(t);
    const key = await newKey(t, ws.workspaceId, { mode: 'live' });
    const res = await key.api.get('/account');
    assert.equal(res.status, 200);
    assert.equal(res.body.data.mode, 'live');
    assert.equal(res.body.data.livemode, true);
    assert.equal(res.body.data.apiKey.id, key.id);
    assert.match(res.body.data.apiKey.prefix, /^pt_live_/);
  });

  test('a key with listed scopes shows them', async () => {
    const ws = await newWorkspace(t);
    const key = await newKey(t, ws.workspaceId, { scopes: ['account:read', 'tracks:write'] });
    const res = await key.api.get('/account');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.apiKey.scopes, ['account:read', 'tracks:write']);
  });
});

describe('GET /account/subscription', () => {
  test("returns the workspace's plan, the limit in force and every plan", async () => {
    const ws = await newWorkspace(t);
    const res = await ws.api.get('/account/subscription');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, {
      plan: {
        id: 'starter',
        name: 'Starter',
        rateLimitPerMinute: 600,
        limits: { webhookEndpoints: 5, apiKeys: 10 },
      },
      effectiveRateLimitPerMinute: 600,
      plans: SUBSCRIPTION_PLANS,
    });
  });

  test("without RATE_LIMIT_PER_MINUTE the rate limit is the plan's", async () => {
    const ws = await newWorkspace(t);
    const starter = await ws.api.get('/account/subscription');
    assert.equal(starter.headers['x-ratelimit-limit'], '600');

    await t.ctx.db
      .updateTable('workspaces')
      .set({ subscription_plan: 'growth' })
      .where('id', '=', ws.workspaceId)
      .execute();
    // Changed behind the server's back: it reads the workspace again once the key it holds is a moment old.
    t.clock.advance(KEY_FRESH_MS);
    const growth = await ws.api.get('/account/subscription');
    assert.equal(growth.body.data.plan.id, 'growth');
    assert.equal(growth.body.data.effectiveRateLimitPerMinute, 1500);
    assert.equal(growth.headers['x-ratelimit-limit'], '1500');
  });
});

describe('GET /account/usage', () => {
  test('counts every keyed request once its response is sent', async () => {
    const ws = await newWorkspace(t);
    const key = await newKey(t, ws.workspaceId);
    for (let i = 0; i < 3; i++) assert.equal((await key.api.get('/account')).status, 200);

    const first = await key.api.get('/account/usage');
    assert.equal(first.status, 200);
    // The three requests before it; the usage request itself is counted after its response.
    assert.deepEqual(first.body.data.totals, { requests: 3, errors: 0 });
    assert.deepEqual(first.body.data.byKey, [{ keyId: key.id, requests: 3, errors: 0 }]);

    assert.equal((await key.api.get('/customers/cus_01J00000000000000000000000')).status, 404);
    assert.equal((await key.api.post('/customers', { nam: 'x' })).status, 422);

    const second = await key.api.get('/account/usage');
    assert.deepEqual(second.body.data.totals, { requests: 6, errors: 2 });
    assert.deepEqual(second.body.data.byKey, [{ keyId: key.id, requests: 6, errors: 2 }]);
    const todays = second.body.data.daily.at(-1);
    assert.deepEqual(todays, { day: today(), requests: 6, errors: 2 });
  });

  test('covers the last 30 days ending today by default, every day listed', async () => {
    const ws = await newWorkspace(t);
    const res = await ws.api.get('/account/usage');
    assert.equal(res.status, 200);
    const { period, daily } = res.body.data;
    assert.deepEqual(period, { from: daysBefore(today(), 29), to: today() });
    assert.equal(daily.length, 30);
    assert.equal(daily[0].day, period.from);
    assert.equal(daily[29].day, period.to);
    for (const day of daily) assert.deepEqual(Object.keys(day).sort(), ['day', 'errors', 'requests']);
    assert.deepEqual(res.body.data.totals, { requests: 0, errors: 0 });
    assert.deepEqual(res.body.data.byKey, []);
  });

  test('sums several keys of the workspace, most requests first', async () => {
    const ws = await newWorkspace(t);
    const a = await newKey(t, ws.workspaceId);
    const b = await newKey(t, ws.workspaceId, { scopes: ['tracks:read'] });
    for (let i = 0; i < 2; i++) await a.api.get('/account');
    for (let i = 0; i < 4; i++) await b.api.get('/tracks');
    // Refused for lack of scope: still a request, and an error.
    assert.equal((await b.api.get('/account')).status, 403);

    const res = await a.api.get('/account/usage');
    assert.deepEqual(res.body.data.totals, { requests: 7, errors: 1 });
    assert.deepEqual(res.body.data.byKey, [
      { keyId: b.id, requests: 5, errors: 1 },
      { keyId: a.id, requests: 2, errors: 0 },
    ]);
    const sum = res.body.data.daily.reduce((n: number, d: { requests: number }) => n + d.requests, 0);
    assert.equal(sum, 7);
  });

  test('a test key and a live key each see their own mode, and no other workspace', async () => {
    const ws = await newWorkspace(t);
    const test = await newKey(t, ws.workspaceId, { mode: 'test' });
    const live = await newKey(t, ws.workspaceId, { mode: 'live' });
    const other = await newWorkspace(t);
    for (let i = 0; i < 2; i++) await test.api.get('/account');
    for (let i = 0; i < 5; i++) await live.api.get('/account');
    for (let i = 0; i < 3; i++) await other.api.get('/account');

    const testUsage = await test.api.get('/account/usage');
    assert.deepEqual(testUsage.body.data.totals, { requests: 2, errors: 0 });
    assert.deepEqual(
      testUsage.body.data.byKey.map((k: { keyId: string }) => k.keyId),
      [test.id],
    );

    const liveUsage = await live.api.get('/account/usage');
    assert.deepEqual(liveUsage.body.data.totals, { requests: 5, errors: 0 });
    assert.deepEqual(liveUsage.body.data.byKey, [{ keyId: live.id, requests: 5, errors: 0 }]);
  });

  test('from and to choose the period', async () => {
    const ws = await newWorkspace(t);
    const res = await ws.api.get('/account/usage?from=2024-02-27&to=2024-03-01');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.period, { from: '2024-02-27', to: '2024-03-01' });
    assert.deepEqual(
      res.body.data.daily.map((d: { day: string }) => d.day),
      ['2024-02-27', '2024-02-28', '2024-02-29', '2024-03-01'],
    );

    const single = await ws.api.get(`/account/usage?from=${today()}&to=${today()}`);
    assert.equal(single.body.data.daily.length, 1);
    assert.equal(single.body.data.totals.requests, 1);

    const onlyTo = await ws.api.get('/account/usage?to=2024-01-31');
    assert.deepEqual(onlyTo.body.data.period, { from: '2024-01-02', to: '2024-01-31' });
  });

  test('a bad period is a validation_error naming the parameter', async () => {
    const ws = await newWorkspace(t);
    const cases: [string, string[]][] = [
      ['from=2024-03-02&to=2024-03-01', ['from']],
      ['from=2024-02-30', ['from']],
      ['to=yesterday', ['to']],
      ['from=2020-01-01&to=2024-01-01', ['from']],
      ['days=7', ['days']],
    ];
    for (const [query, fields] of cases) {
      const res = await ws.api.get(`/account/usage?${query}`);
      assert.equal(res.status, 422, query);
      assert.equal(res.body.error.code, 'validation_error');
      assert.deepEqual(Object.keys(res.body.error.details.fields), fields, query);
    }
  });

  test('requests are counted on the UTC day they were answered', async () => {
    const ws = await newWorkspace(t);
    const key = await newKey(t, ws.workspaceId);
    await key.api.get('/account');
    await key.api.get('/account');
    const firstDay = today();
    t.clock.advance(DAY_MS);
    await key.api.get('/account');

    const res = await key.api.get('/account/usage');
    const [before, last] = res.body.data.daily.slice(-2);
    assert.deepEqual(before, { day: firstDay, requests: 2, errors: 0 });
    assert.deepEqual(last, { day: today(), requests: 1, errors: 0 });
    assert.deepEqual(res.body.data.totals, { requests: 3, errors: 0 });
  });
});

describe('scopes', () => {
  test('a key without account scope gets 403 forbidden naming account:read', async () => {
    const ws = await newWorkspace(t);
    const key = await newKey(t, ws.workspaceId, { scopes: ['tracks:read'] });
    for (const path of ['/account', '/account/usage', '/account/subscription']) {
      const res = await key.api.get(path);
      assert.equal(res.status, 403, path);
      assert.equal(res.body.success, false);
      assert.equal(res.body.error.code, 'forbidden');
      assert.deepEqual(res.body.error.details, { required_scope: 'account:read' });
    }
  });

  test('account:read and account:write may read the account', async () => {
    const ws = await newWorkspace(t);
    for (const scope of ['account:read', 'account:write'] as const) {
      const key = await newKey(t, ws.workspaceId, { scopes: [scope] });
      for (const path of ['/account', '/account/usage', '/account/subscription']) {
        assert.equal((await key.api.get(path)).status, 200, `${scope} ${path}`);
      }
    }
  });
});
