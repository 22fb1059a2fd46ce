import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { relayEvents } from '../../src/outbox/relay.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newWorkspace } from '../helpers/factories.js';
import { type DeliveredEvent, type Receiver, receiverSet, signatureHeadersOf } from '../helpers/receiver.js';

let t: TestApp;
const receivers = receiverSet();

before(async () => {
  t = await buildTestApp();
});

after(async () => {
  await receivers.closeAll();
  await t.close();
});

const receiver = (statuses: number[] = []): Promise<Receiver> => receivers.start(statuses);

interface CreatedEndpoint {
  id: string;
  secret: string;
  url: string;
  status: string;
  eventTypes: string[];
}

interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  attemptNumber: number;
  status: string;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: string;
  nextAttemptAt: string | null;
}

async function createEndpoint(api: Client, body: Record<string, unknown>): Promise<CreatedEndpoint> {
  const res = await api.post('/webhooks', body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

async function deliveries(api: Client, endpointId: string, query = '') {
  const res = await api.get(`/webhooks/${endpointId}/deliveries${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as { items: Delivery[]; has_more: boolean; next_cursor: string | null };
}

describe('webhook endpoints', () => {
  test('create returns the endpoint and a whsec_ secret that is never shown again', async () => {
    const { api } = await newWorkspace(t);
    const res = await api.post('/webhooks', { url: 'https://example.com/hooks', description: 'Orders' });
    assert.equal(res.status, 201);
    const created = res.body.data;
    assert.match(created.id, /^whe_/);
    assert.equal(created.url, 'https://example.com/hooks');
    assert.equal(created.description, 'Orders');
    assert.deepEqual(created.eventTypes, ['*']);
    assert.equal(created.status, 'enabled');
    assert.equal(created.disabledAt, null);
    assert.equal(created.createdAt, created.updatedAt);
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/);
    const keyBytes = Buffer.from(created.secret.slice('whsec_'.length), 'base64').length;
    assert.ok(keyBytes >= 24 && keyBytes <= 32);

    const got = await api.get(`/webhooks/${created.id}`);
    assert.equal(got.status, 200);
    const { secret: _secret, ...withoutSecret } = created;
    assert.deepEqual(got.body.data, withoutSecret);
    const list = await api.get('/webhooks');
    assert.deepEqual(list.body.data.items, [withoutSecret]);
    assert.ok(!JSON.stringify([got.body, list.body]).includes(created.secret));
  });

  test('two endpoints get different secrets; known event types are kept without repeats', async () => {
    const { api } = await newWorkspace(t);
    const a = await createEndpoint(api, {
      url: 'https://example.com/a',
      eventTypes: ['customer.created', 'payment.recorded', 'customer.created'],
    });
    const b = await createEndpoint(api, {
      url: 'https://example.com/b',
      eventTypes: ['*', 'customer.created'],
    });
    assert.notEqual(a.secret, b.secret);
    assert.deepEqual(a.eventTypes, ['customer.created', 'payment.recorded']);
    assert.deepEqual(b.eventTypes, ['*']);
  });

  test('list is newest first, paginates with a cursor and filters by status', async () => {
    const { api } = await newWorkspace(t);
    const first = await createEndpoint(api, { url: 'https://example.com/1' });
    const second = await createEndpoint(api, { url: 'https://example.com/2' });
    const third = await createEndpoint(api, { url: 'https://example.com/3' });
    assert.equal((await api.delete(`/webhooks/${second.id}`)).status, 200);

    const page1 = await api.get('/webhooks?limit=2');
    assert.deepEqual(
      page1.body.data.items.map((e: { id: string }) => e.id),
      [third.id, second.id],
    );
    assert.equal(page1.body.data.has_more, true);
    const page2 = await api.get(`/webhooks?limit=2&cursor=${page1.body.data.next_cursor}`);
    assert.deepEqual(
      page2.body.data.items.map((e: { id: string }) => e.id),
      [first.id],
    );
    assert.equal(page2.body.data.has_more, false);
    assert.equal(page2.body.data.next_cursor, null);

    const disabled = await api.get('/webhooks?status=disabled');
    assert.deepEqual(
      disabled.body.data.items.map((e: { id: string }) => e.id),
      [second.id],
    );
    const enabled = await api.get('/webhooks?status=enabled');
    assert.deepEqual(
      enabled.body.data.items.map((e: { id: string }) => e.id),
      [third.id, first.id],
    );
  });

  test('update changes url, description and event types', async () => {
    const { api } = await newWorkspace(t);
    const endpoint = await createEndpoint(api, { url: 'https://example.com/old', description: 'Old' });
    t.clock.advance(1_000);
    const res = await api.patch(`/webhooks/${endpoint.id}`, {
      url: 'https://example.com/new',
      description: null,
      eventTypes: ['track.completed'],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.url, 'https://example.com/new');
    assert.equal(res.body.data.description, null);
    assert.deepEqual(res.body.data.eventTypes, ['track.completed']);
    assert.ok(res.body.data.updatedAt > res.body.data.createdAt);
    assert.equal(res.body.data.secret, undefined);
    assert.deepEqual((await api.get(`/webhooks/${endpoint.id}`)).body.data, res.body.data);
  });

  test('DELETE disables, a second DELETE is invalid_state, PATCH status enabled re-enables', async () => {
    const { api } = await newWorkspace(t);
    const endpoint = await createEndpoint(api, { url: 'https://example.com/hooks' });

    const disabled = await api.delete(`/webhooks/${endpoint.id}`);
    assert.equal(disabled.status, 200);
    assert.equal(disabled.body.data.status, 'disabled');
    assert.ok(disabled.body.data.disabledAt);

    const again = await api.delete(`/webhooks/${endpoint.id}`);
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'invalid_state');
    assert.equal(again.body.error.details.status, 'disabled');

    const test409 = await api.post(`/webhooks/${endpoint.id}/test`);
    assert.equal(test409.status, 409);
    assert.equal(test409.body.error.code, 'invalid_state');

    const enabled = await api.patch(`/webhooks/${endpoint.id}`, { status: 'enabled' });
    assert.equal(enabled.status, 200);
    assert.equal(enabled.body.data.status, 'enabled');
    assert.equal(enabled.body.data.disabledAt, null);

    const viaPatch = await api.patch(`/webhooks/${endpoint.id}`, { status: 'disabled' });
    assert.equal(viaPatch.body.data.status, 'disabled');
    assert.ok(viaPatch.body.data.disabledAt);
  });

  test("a sixth enabled endpoint is beyond the plan's limit; a disabled one makes room", async () => {
    const { api, live } = await newWorkspace(t);
    const created = [];
    for (let i = 0; i < 5; i++)
      created.push(await createEndpoint(api, { url: `https://example.com/hooks/${i}` }));
    const refused = await api.post('/webhooks', { url: 'https://example.com/hooks/6' });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'invalid_state');
    assert.deepEqual(refused.body.error.details, {
      status: 'limit_reached',
      action: 'create_webhook_endpoint',
      limit: 5,
    });
    assert.equal((await live.post('/webhooks', { url: 'https://example.com/hooks/live' })).status, 201);

    assert.equal((await api.delete(`/webhooks/${created[0]?.id}`)).status, 200);
    const sixth = await createEndpoint(api, { url: 'https://example.com/hooks/6' });
    const reEnable = await api.patch(`/webhooks/${created[0]?.id}`, { status: 'enabled' });
    assert.equal(reEnable.status, 409);
    assert.equal(reEnable.body.error.details.status, 'limit_reached');
    assert.equal((await api.get('/webhooks?status=enabled')).body.data.items.length, 5);
    assert.ok(sixth.id);
  });

  test('bad input is a validation_error naming each field', async () => {
    const { api } = await newWorkspace(t);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'ftp://example.com/hooks' }, 'url'],
      [{ url: 'https://user:secret@example.com/hooks' }, 'url'],
      [{ url: `https://example.com/${'a'.repeat(2048)}` }, 'url'],
      [{ url: 'https://example.com/hooks', eventTypes: ['customer.exploded'] }, 'eventTypes'],
      [{ url: 'https://example.com/hooks', eventTypes: [] }, 'eventTypes'],
      [{ url: 'https://example.com/hooks', metadata: { a: 'b' } }, 'metadata'],
      [{ url: 'https://example.com/hooks', secret: 'whsec_mine' }, 'secret'],
    ];
    for (const [body, field] of cases) {
      const res = await api.post('/webhooks', body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(res.body.error.code, 'validation_error');
      assert.ok(
        field in res.body.error.details.fields,
        `${field} in ${JSON.stringify(res.body.error.details)}`,
      );
    }
    const unknownType = await api.post('/webhooks', {
      url: 'https://example.com/x',
      eventTypes: ['nope.nope'],
    });
    assert.match(unknownType.body.error.details.fields.eventTypes, /nope\.nope/);

    const endpoint = await createEndpoint(api, { url: 'https://example.com/hooks' });
    for (const [body, field] of [
      [{ status: 'paused' }, 'status'],
      [{ eventTypes: ['bogus'] }, 'eventTypes'],
      [{ url: 'gopher://example.com' }, 'url'],
      [{ colour: 'red' }, 'colour'],
    ] as const) {
      const res = await api.patch(`/webhooks/${endpoint.id}`, body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.ok(field in res.body.error.details.fields, JSON.stringify(res.body.error.details));
    }
    assert.equal((await api.get('/webhooks?status=paused')).status, 422);
  });

  test('an unknown endpoint id is not_found', async () => {
    const { api } = await newWorkspace(t);
    for (const res of [
      await api.get('/webhooks/whe_missing'),
      await api.patch('/webhooks/whe_missing', { description: 'x' }),
      await api.delete('/webhooks/whe_missing'),
      await api.post('/webhooks/whe_missing/test'),
      await api.get('/webhooks/whe_missing/deliveries'),
    ]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'not_found');
    }
  });
});

describe('webhook delivery', () => {
  test('a real event arrives signed per Standard Webhooks and is logged as a succeeded attempt', async () => {
    const { api } = await newWorkspace(t);
    const r = await receiver();
    const endpoint = await createEndpoint(api, { url: r.url });
    const customer = await newCustomer(api, { name: 'Chidi Okeke' });
    await t.worker.drain();

    assert.equal(r.requests.length, 1);
    const [req] = r.requests;
    assert.ok(req);
    assert.equal(req.method, 'POST');
    assert.equal(req.path, '/hooks');
    assert.match(req.headers['content-type'] ?? '', /^application\/json/);
    assert.equal(req.headers['user-agent'], 'paytrack-webhooks/1');
    const event = new Webhook(endpoint.secret).verify(req.body, signatureHeadersOf(req)) as DeliveredEvent;
    assert.equal(event.type, 'customer.created');
    assert.match(event.id, /^evt_/);
    assert.equal(req.headers['webhook-id'], event.id);
    assert.equal(event.livemode, false);
    assert.deepEqual(event.data.object, customer);
    assert.ok(Math.abs(Number(req.headers['webhook-timestamp']) - t.clock.now().getTime() / 1000) < 60);

    const log = await deliveries(api, endpoint.id);
    assert.equal(log.items.length, 1);
    const [attempt] = log.items;
    assert.ok(attempt);
    assert.match(attempt.id, /^whd_/);
    assert.equal(attempt.eventId, event.id);
    assert.equal(attempt.eventType, 'customer.created');
    assert.equal(attempt.attemptNumber, 1);
    assert.equal(attempt.status, 'succeeded');
    assert.equal(attempt.responseStatus, 200);
    assert.equal(attempt.error, null);
    assert.equal(attempt.nextAttemptAt, null);
    assert.ok(Number.isInteger(attempt.durationMs) && attempt.durationMs >= 0);
    assert.ok(!JSON.stringify(log).includes(endpoint.secret));

    await t.worker.drain();
    assert.equal(r.requests.length, 1, 'a drained event is not delivered twice');
  });

  test('an endpoint only receives the event types it subscribed to', async () => {
    const { api } = await newWorkspace(t);
    const paymentsOnly = await receiver();
    const customersOnly = await receiver();
    await createEndpoint(api, { url: paymentsOnly.url, eventTypes: ['payment.recorded'] });
    await createEndpoint(api, { url: customersOnly.url, eventTypes: ['customer.created'] });
    const customer = await newCustomer(api);
    assert.equal((await api.patch(`/customers/${customer.id}`, { name: 'Renamed' })).status, 200);
    await t.worker.drain();

    assert.equal(paymentsOnly.requests.length, 0);
    assert.deepEqual(
      customersOnly.requests.map((req) => JSON.parse(req.body).type),
      ['customer.created'],
    );
  });

  test('an endpoint receives the events that happen after it is created, not earlier ones', async () => {
    const { api } = await newWorkspace(t);
    await newCustomer(api);
    await t.worker.drain();
    const r = await receiver();
    await createEndpoint(api, { url: r.url });
    const later = await newCustomer(api);
    await t.worker.drain();
    assert.deepEqual(
      r.requests.map((req) => JSON.parse(req.body).data.object.id),
      [later.id],
    );
  });

  test('the relay queues a delivery only where an endpoint is enabled and subscribed', async () => {
    const { api } = await newWorkspace(t);
    const deliveriesQueued = async (eventId: string) =>
      (
        await t.ctx.db.selectFrom('jobs').select('payload').where('name', '=', 'webhooks.deliver').execute()
      ).filter((job) => JSON.parse(job.payload).eventId === eventId).length;
    const eventOf = async (objectId: string) => {
      const rows = await t.ctx.db.selectFrom('events').selectAll().execute();
      const row = rows.find((e) => JSON.parse(e.data).id === objectId);
      assert.ok(row);
      return row;
    };

    const unheard = await newCustomer(api);
    assert.equal(await relayEvents(t.ctx), 1);
    const kept = await eventOf(unheard.id);
    assert.ok(kept.dispatched_at, 'the event is kept and marked relayed');
    assert.equal(await deliveriesQueued(kept.id), 0, 'no endpoint: nothing is queued');

    const r = await receiver();
    await createEndpoint(api, { url: r.url, eventTypes: ['customer.created'] });
    const heard = await newCustomer(api);
    assert.equal((await api.patch(`/customers/${heard.id}`, { name: 'Renamed' })).status, 200);
    await relayEvents(t.ctx);
    assert.equal(await deliveriesQueued((await eventOf(heard.id)).id), 1);
    const updated = (
      await t.ctx.db.selectFrom('events').selectAll().where('type', '=', 'customer.updated').execute()
    ).filter((e) => JSON.parse(e.data).id === heard.id);
    assert.equal(updated.length, 1);
    assert.equal(await deliveriesQueued(updated[0]!.id), 0, 'not subscribed to customer.updated');
    assert.equal(await relayEvents(t.ctx), 0, 'each event is relayed once');
    await t.worker.drain();
  });

  test('the test event is queued with 202 and reaches only its endpoint', async () => {
    const { api } = await newWorkspace(t);
    const target = await receiver();
    const other = await receiver();
    const endpoint = await createEndpoint(api, { url: target.url });
    await createEndpoint(api, { url: other.url });

    const res = await api.post(`/webhooks/${endpoint.id}/test`);
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.match(res.body.data.id, /^evt_/);
    assert.equal(res.body.data.type, 'webhook.test');
    assert.equal(res.body.data.livemode, false);
    assert.equal(res.body.data.data.object.id, endpoint.id);
    assert.ok(!JSON.stringify(res.body).includes(endpoint.secret));
    await t.worker.drain();

    assert.equal(other.requests.length, 0);
    assert.equal(target.requests.length, 1);
    const [req] = target.requests;
    assert.ok(req);
    const event = new Webhook(endpoint.secret).verify(req.body, signatureHeadersOf(req));
    assert.deepEqual(event, res.body.data);
  });

  test('a failed delivery is retried after the backoff with a fresh, still valid signature', async () => {
    const { api } = await newWorkspace(t);
    const r = await receiver([500]);
    const endpoint = await createEndpoint(api, { url: r.url });
    await newCustomer(api);
    await t.worker.drain();

    assert.equal(r.requests.length, 1);
    const [failed] = (await deliveries(api, endpoint.id)).items;
    assert.ok(failed?.nextAttemptAt, 'a failed attempt says when the next one is due');
    assert.equal(failed.status, 'failed');
    assert.equal(failed.attemptNumber, 1);
    assert.equal(failed.responseStatus, 500);
    assert.match(failed.error ?? '', /500/);
    const waitMs = Date.parse(failed.nextAttemptAt) - Date.parse(failed.attemptedAt);
    assert.ok(waitMs >= 5_000 && waitMs < 6_000, `retry after ${waitMs} ms`);

    await t.worker.drain();
    assert.equal(r.requests.length, 1, 'no retry before the backoff has passed');

    t.clock.advance(6_000);
    await t.worker.drain();
    assert.equal(r.requests.length, 2);
    const [first, second] = r.requests;
    assert.ok(first && second);
    assert.equal(second.headers['webhook-id'], first.headers['webhook-id']);
    assert.equal(second.body, first.body);
    assert.notEqual(second.headers['webhook-timestamp'], first.headers['webhook-timestamp']);
    assert.ok(Number(second.headers['webhook-timestamp']) >= Number(first.headers['webhook-timestamp']) + 5);
    const hook = new Webhook(endpoint.secret);
    assert.equal(
      (hook.verify(second.body, signatureHeadersOf(second)) as DeliveredEvent).type,
      'customer.created',
    );
    assert.equal(
      (hook.verify(first.body, signatureHeadersOf(first)) as DeliveredEvent).type,
      'customer.created',
    );

    const log = await deliveries(api, endpoint.id);
    assert.deepEqual(
      log.items.map((d) => [d.attemptNumber, d.status, d.responseStatus]),
      [
        [2, 'succeeded', 200],
        [1, 'failed', 500],
      ],
    );
    const [attempt2, attempt1] = log.items;
    assert.equal(attempt2?.nextAttemptAt, null);
    assert.equal(attempt2?.eventId, attempt1?.eventId);
  });

  test('a connection failure is a failed attempt with the error kept', async () => {
    const { api } = await newWorkspace(t);
    const r = await receiver();
    const url = r.url;
    await r.close();
    const endpoint = await createEndpoint(api, { url });
    await newCustomer(api);
    await t.worker.drain();

    const [attempt] = (await deliveries(api, endpoint.id)).items;
    assert.ok(attempt);
    assert.equal(attempt.status, 'failed');
    assert.equal(attempt.responseStatus, null);
    assert.match(attempt.error ?? '', /ECONNREFUSED/);
    assert.ok(attempt.nextAttemptAt);
  });

  test('a disabled endpoint gets nothing: neither new events nor pending retries', async () => {
    const { api } = await newWorkspace(t);
    const quiet = await receiver();
    const disabledFirst = await createEndpoint(api, { url: quiet.url });
    assert.equal((await api.delete(`/webhooks/${disabledFirst.id}`)).status, 200);
    await newCustomer(api);
    await t.worker.drain();
    assert.equal(quiet.requests.length, 0);
    assert.deepEqual((await deliveries(api, disabledFirst.id)).items, []);

    const failing = await receiver([500, 500, 500]);
    const retrying = await createEndpoint(api, { url: failing.url });
    await newCustomer(api);
    await t.worker.drain();
    assert.equal(failing.requests.length, 1);
    assert.equal((await api.delete(`/webhooks/${retrying.id}`)).status, 200);
    t.clock.advance(10 * 60_000);
    await t.worker.drain();
    assert.equal(failing.requests.length, 1);
    assert.equal((await deliveries(api, retrying.id)).items.length, 1);
  });

  test('the deliveries list is newest first, paginates and filters', async () => {
    const { api } = await newWorkspace(t);
    const r = await receiver([500]);
    const endpoint = await createEndpoint(api, { url: r.url });
    await newCustomer(api);
    await t.worker.drain();
    t.clock.advance(6_000);
    await t.worker.drain();
    const test = await api.post(`/webhooks/${endpoint.id}/test`);
    await t.worker.drain();

    const all = await deliveries(api, endpoint.id);
    assert.deepEqual(
      all.items.map((d) => [d.eventType, d.attemptNumber, d.status]),
      [
        ['webhook.test', 1, 'succeeded'],
        ['customer.created', 2, 'succeeded'],
        ['customer.created', 1, 'failed'],
      ],
    );

    const page1 = await deliveries(api, endpoint.id, '?limit=2');
    assert.equal(page1.items.length, 2);
    assert.equal(page1.has_more, true);
    const page2 = await deliveries(api, endpoint.id, `?limit=2&cursor=${page1.next_cursor}`);
    assert.deepEqual(
      [...page1.items, ...page2.items].map((d) => d.id),
      all.items.map((d) => d.id),
    );
    assert.equal(page2.has_more, false);

    const failed = await deliveries(api, endpoint.id, '?status=failed');
    assert.deepEqual(
      failed.items.map((d) => d.attemptNumber),
      [1],
    );
    const ofTest = await deliveries(api, endpoint.id, `?eventId=${test.body.data.id}`);
    assert.deepEqual(
      ofTest.items.map((d) => d.eventType),
      ['webhook.test'],
    );
  });
});
