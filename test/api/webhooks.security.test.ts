import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { ApiResponse, Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newKey, newWorkspace } from '../helpers/factories.js';
import {
  type DeliveredEvent,
  type Receiver,
  signatureHeadersOf,
  startReceiver,
} from '../helpers/receiver.js';

/** The default test app allows loopback receivers; `guarded` runs with the production SSRF guard. */
let open: TestApp;
let guarded: TestApp;
const receivers: Receiver[] = [];

before(async () => {
  open = await buildTestApp();
  guarded = await buildTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
});

after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await open.close();
  await guarded.close();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

async function createEndpoint(api: Client, body: Record<string, unknown>) {
  const res = await api.post('/webhooks', body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data as { id: string; secret: string };
}

function assertUrlRefused(res: ApiResponse, url: string) {
  assert.equal(res.status, 422, `${url}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.error.code, 'validation_error');
  assert.ok(res.body.error.details.fields.url, `${url}: ${JSON.stringify(res.body.error.details)}`);
}

describe('SSRF guard', () => {
  const privateUrls = [
    'http://127.0.0.1/hooks',
    'http://127.0.0.1:8080/hooks',
    'http://169.254.169.254/latest/meta-data/',
    'http://localhost:3000/hooks',
    'http://api.localhost/hooks',
    'http://10.0.0.8/hooks',
    'http://172.16.4.4/hooks',
    'http://192.168.1.10/hooks',
    'http://100.64.0.1/hooks',
    'http://0.0.0.0/hooks',
    'http://224.0.0.1/hooks',
    'http://[::1]/hooks',
    'http://[fd00::1]/hooks',
    'http://[fe80::1]/hooks',
    'http://[::ffff:127.0.0.1]/hooks',
    'http://[::ffff:169.254.169.254]/hooks',
    'http://2130706433/hooks',
    'http://0x7f000001/hooks',
  ];

  test('create refuses private, loopback, link-local and metadata addresses', async () => {
    const { api } = await newWorkspace(guarded);
    for (const url of privateUrls) assertUrlRefused(await api.post('/webhooks', { url }), url);
    assert.deepEqual((await api.get('/webhooks')).body.data.items, []);
  });

  test('create refuses a host that does not resolve', async () => {
    const { api } = await newWorkspace(guarded);
    const url = 'https://no-such-host.invalid/hooks';
    const res = await api.post('/webhooks', { url });
    assertUrlRefused(res, url);
    assert.match(res.body.error.details.fields.url, /resolve/);
  });

  test('a public address is accepted, and update refuses moving it to a private one', async () => {
    const { api } = await newWorkspace(guarded);
    const endpoint = await createEndpoint(api, { url: 'https://93.184.215.14/hooks' });
    for (const url of [
      'http://127.0.0.1/hooks',
      'http://169.254.169.254/latest/meta-data/',
      'http://localhost/',
    ]) {
      assertUrlRefused(await api.patch(`/webhooks/${endpoint.id}`, { url }), url);
    }
    const unchanged = await api.get(`/webhooks/${endpoint.id}`);
    assert.equal(unchanged.body.data.url, 'https://93.184.215.14/hooks');
  });

  test('delivery re-checks the address: a host that now points at loopback gets no request', async () => {
    const { api } = await newWorkspace(guarded);
    const r = await receiver();
    const endpoint = await createEndpoint(api, { url: 'https://93.184.215.14/hooks' });
    // Stands in for the endpoint's DNS name changing to a loopback address after it was registered.
    await guarded.ctx.db
      .updateTable('webhook_endpoints')
      .set({ url: r.url })
      .where('id', '=', endpoint.id)
      .execute();
    await newCustomer(api);
    await guarded.worker.drain();

    assert.equal(r.requests.length, 0);
    const log = await api.get(`/webhooks/${endpoint.id}/deliveries`);
    assert.equal(log.body.data.items.length, 1);
    const [attempt] = log.body.data.items;
    assert.equal(attempt.status, 'failed');
    assert.equal(attempt.error, 'blocked_address');
    assert.equal(attempt.responseStatus, null);
    assert.ok(attempt.nextAttemptAt);
  });

  test('re-enabling an endpoint checks its address again', async () => {
    const { api } = await newWorkspace(guarded);
    const endpoint = await createEndpoint(api, { url: 'https://93.184.215.14/hooks' });
    assert.equal((await api.delete(`/webhooks/${endpoint.id}`)).status, 200);
    await guarded.ctx.db
      .updateTable('webhook_endpoints')
      .set({ url: 'http://169.254.169.254/latest/meta-data/' })
      .where('id', '=', endpoint.id)
      .execute();
    const url = 'http://169.254.169.254/latest/meta-data/';
    assertUrlRefused(await api.patch(`/webhooks/${endpoint.id}`, { status: 'enabled' }), url);
    assert.equal((await api.get(`/webhooks/${endpoint.id}`)).body.data.status, 'disabled');
  });

  test('WEBHOOK_ALLOW_PRIVATE=true lets endpoints point at loopback', async () => {
    const { api } = await newWorkspace(open);
    await createEndpoint(api, { url: 'http://127.0.0.1:9/hooks' });
    await createEndpoint(api, { url: 'http://localhost:9/hooks' });
  });
});

describe('isolation', () => {
  test("another workspace's endpoint is not_found everywhere and absent from lists", async () => {
    const owner = await newWorkspace(open);
    const stranger = await newWorkspace(open);
    const endpoint = await createEndpoint(owner.api, { url: 'https://example.com/hooks' });

    for (const res of [
      await stranger.api.get(`/webhooks/${endpoint.id}`),
      await stranger.api.patch(`/webhooks/${endpoint.id}`, { description: 'mine now' }),
      await stranger.api.delete(`/webhooks/${endpoint.id}`),
      await stranger.api.post(`/webhooks/${endpoint.id}/test`),
      await stranger.api.get(`/webhooks/${endpoint.id}/deliveries`),
    ]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'not_found');
    }
    assert.deepEqual((await stranger.api.get('/webhooks')).body.data.items, []);
    const still = await owner.api.get(`/webhooks/${endpoint.id}`);
    assert.equal(still.body.data.status, 'enabled');
    assert.equal(still.body.data.description, null);
  });

  test('test and live mode endpoints never see each other', async () => {
    const ws = await newWorkspace(open);
    const testEndpoint = await createEndpoint(ws.api, { url: 'https://example.com/test' });
    assert.equal((await ws.live.get(`/webhooks/${testEndpoint.id}`)).status, 404);
    assert.equal((await ws.live.delete(`/webhooks/${testEndpoint.id}`)).status, 404);
    assert.deepEqual((await ws.live.get('/webhooks')).body.data.items, []);
  });

  test('live-mode events go to live endpoints only, and events stay in their workspace', async () => {
    const ws = await newWorkspace(open);
    const other = await newWorkspace(open);
    const testReceiver = await receiver();
    const liveReceiver = await receiver();
    const otherReceiver = await receiver();
    await createEndpoint(ws.api, { url: testReceiver.url });
    const liveEndpoint = await createEndpoint(ws.live, { url: liveReceiver.url });
    await createEndpoint(other.api, { url: otherReceiver.url });

    const customer = await newCustomer(ws.live);
    await open.worker.drain();

    assert.equal(testReceiver.requests.length, 0);
    assert.equal(otherReceiver.requests.length, 0);
    assert.equal(liveReceiver.requests.length, 1);
    const [req] = liveReceiver.requests;
    assert.ok(req);
    const event = new Webhook(liveEndpoint.secret).verify(
      req.body,
      signatureHeadersOf(req),
    ) as DeliveredEvent;
    assert.equal(event.livemode, true);
    assert.equal(event.data.object.id, customer.id);
  });

  test('an endpoint signs with its own secret only', async () => {
    const ws = await newWorkspace(open);
    const r1 = await receiver();
    const r2 = await receiver();
    const e1 = await createEndpoint(ws.api, { url: r1.url });
    const e2 = await createEndpoint(ws.api, { url: r2.url });
    await newCustomer(ws.api);
    await open.worker.drain();
    const [req1] = r1.requests;
    assert.ok(req1);
    assert.throws(() => new Webhook(e2.secret).verify(req1.body, signatureHeadersOf(req1)));
    assert.ok(new Webhook(e1.secret).verify(req1.body, signatureHeadersOf(req1)));
  });

  test('webhook routes need the webhooks scope', async () => {
    const ws = await newWorkspace(open);
    const endpoint = await createEndpoint(ws.api, { url: 'https://example.com/hooks' });
    const customersOnly = await newKey(open, ws.workspaceId, { scopes: ['customers:write'] });
    const denied = await customersOnly.api.get('/webhooks');
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error.details.required_scope, 'webhooks:read');

    const reader = await newKey(open, ws.workspaceId, { scopes: ['webhooks:read'] });
    assert.equal((await reader.api.get(`/webhooks/${endpoint.id}/deliveries`)).status, 200);
    for (const res of [
      await reader.api.post('/webhooks', { url: 'https://example.com/x' }),
      await reader.api.post(`/webhooks/${endpoint.id}/test`),
      await reader.api.delete(`/webhooks/${endpoint.id}`),
    ]) {
      assert.equal(res.status, 403);
      assert.equal(res.body.error.details.required_scope, 'webhooks:write');
    }
  });
});
