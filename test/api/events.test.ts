import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';
import { receiverSet } from '../helpers/receiver.js';

let t: TestApp;
const receivers = receiverSet();
before(async () => {
  t = await buildTestApp();
});
after(async () => {
  await receivers.closeAll();
  await t.close();
});

interface ApiEvent {
  id: string;
  type: string;
  createdAt: string;
  livemode: boolean;
  data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> };
}

async function events(api: Client, query = ''): Promise<ApiEvent[]> {
  const res = await api.get(`/events?limit=100${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.items;
}

describe('GET /events', () => {
  test('lists the workspace mode events newest first, by type and period, and pages', async () => {
    const { api, live } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const plan = await newTrack(api, { customerId: customer.id });
    await newCustomer(live);
    const all = await events(api);
    assert.deepEqual(
      all.map((e) => e.type),
      ['track.created', 'customer.created'],
    );
    assert.deepEqual(all[0]?.data.object.id, plan.id);
    assert.equal(all[0]?.livemode, false);
    assert.deepEqual(
      (await events(api, '&type=customer.created')).map((e) => e.data.object.id),
      [customer.id],
    );
    const page = await api.get('/events?limit=1');
    assert.equal(page.body.data.has_more, true);
    const next = await api.get(`/events?limit=1&cursor=${page.body.data.next_cursor}`);
    assert.equal(next.body.data.items[0].type, 'customer.created');
    const later = new Date(t.clock.now().getTime() + 1).toISOString();
    assert.deepEqual(await events(api, `&from=${later}`), []);
    assert.equal((await events(live)).length, 1, 'live sees its own only');
  });

  test('an unknown type is a validation_error listing the known ones', async () => {
    const { api } = await newWorkspace(t);
    const res = await api.get('/events?type=customer.exploded');
    assert.equal(res.status, 422);
    assert.match(res.body.error.details.fields.type, /customer\.created/);
  });

  test('keeps 30 days by the tenant clock: older events are neither listed nor found', async () => {
    const { api } = await newWorkspace(t);
    await newCustomer(api);
    const [old] = await events(api);
    assert.ok(old);
    assert.equal((await api.post('/account/test-clock/advance', { days: 31 })).status, 200);
    const fresh = await newCustomer(api);
    assert.deepEqual(
      (await events(api)).map((e) => e.data.object.id),
      [fresh.id],
    );
    assert.equal((await api.get(`/events/${old.id}`)).status, 404);
  });

  test('GET /events/{id} returns one event; another workspace gets not_found', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const [event] = await events(api);
    const res = await api.get(`/events/${event?.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, event);
    assert.deepEqual(res.body.data.data.object, customer);
    const other = await newWorkspace(t);
    assert.equal((await other.api.get(`/events/${event?.id}`)).status, 404);
  });

  test('is scoped to events:read and events:write', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    await newCustomer(api);
    const reader = await newKey(t, workspaceId, { scopes: ['events:read'] });
    assert.equal((await reader.api.get('/events')).status, 200);
    const [event] = await events(api);
    const refused = await reader.api.post(`/events/${event?.id}/resend`, {});
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.details.required_scope, 'events:write');
    const webhooksOnly = await newKey(t, workspaceId, { scopes: ['webhooks:write'] });
    assert.equal((await webhooksOnly.api.get('/events')).status, 403);
  });
});

describe('what events carry', () => {
  test('update events carry the old values of the changed fields', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api, { name: 'Ada Obi', email: 'ada@example.com' });
    await api.patch(`/customers/${customer.id}`, { name: 'Ada Obi-Eze', email: 'ada@example.com' });
    const [updated] = await events(api, '&type=customer.updated');
    assert.equal(updated?.data.object.name, 'Ada Obi-Eze');
    assert.deepEqual(updated?.data.previous_attributes, { name: 'Ada Obi' });
  });

  test('every balance change is a track.updated with the old balance, and payment events carry balanceAfter', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 1_000 });
    const first = await newPayment(api, plan.id, { amount: 400 });
    await newPayment(api, plan.id, { amount: 600 });
    const recorded = await events(api, '&type=payment.recorded');
    assert.deepEqual(
      recorded.map((e) => [e.data.object.amount, e.data.object.balanceAfter]),
      [
        [600, 0],
        [400, 600],
      ],
    );
    const updates = await events(api, '&type=track.updated');
    assert.deepEqual(
      updates.map((e) => e.data.previous_attributes),
      [
        { amountPaid: 400, balance: 600, status: 'active' },
        { amountPaid: 0, balance: 1_000 },
      ],
    );
    assert.equal(updates[0]?.data.object.status, 'completed');
    assert.equal((await events(api, '&type=track.completed')).length, 1);

    await api.post(`/payments/${first.id}/reverse`, {});
    const [reversed] = await events(api, '&type=payment.reversed');
    assert.equal(reversed?.data.object.balanceAfter, 400);
    const [reopened] = await events(api, '&type=track.updated');
    assert.deepEqual(reopened?.data.previous_attributes, {
      amountPaid: 1_000,
      balance: 0,
      status: 'completed',
    });
  });

  test('a plan update that changes its title and amount is one track.updated', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 1_000, title: 'Fridge' });
    await api.patch(`/tracks/${plan.id}`, { title: 'Fridge, 2 doors', amount: 1_200 });
    const updates = await events(api, '&type=track.updated');
    assert.equal(updates.length, 1);
    assert.deepEqual(updates[0]?.data.previous_attributes, {
      title: 'Fridge',
      amount: 1_000,
      balance: 1_000,
    });
    await api.patch(`/tracks/${plan.id}`, { title: 'Fridge, 2 doors' });
    assert.equal((await events(api, '&type=track.updated')).length, 1, 'no change, no event');
  });
});

describe('POST /events/{id}/resend', () => {
  test('delivers again to one endpoint or to every subscribed one', async () => {
    const { api } = await newWorkspace(t);
    const a = await receivers.start();
    const b = await receivers.start();
    const endpointA = await api.post('/webhooks', { url: a.url });
    await api.post('/webhooks', { url: b.url, eventTypes: ['payment.recorded'] });
    await newCustomer(api);
    await t.worker.drain();
    assert.equal(a.requests.length, 1);
    assert.equal(b.requests.length, 0);
    const [event] = await events(api, '&type=customer.created');

    const one = await api.post(`/events/${event?.id}/resend`, { endpointId: endpointA.body.data.id });
    assert.equal(one.status, 202, JSON.stringify(one.body));
    assert.deepEqual(one.body.data, { eventId: event?.id, endpointIds: [endpointA.body.data.id] });
    await t.worker.drain();
    assert.equal(a.requests.length, 2);
    assert.equal(a.requests[1]?.headers['webhook-id'], event?.id);
    assert.equal(a.requests[1]?.body, a.requests[0]?.body);

    const every = await api.post(`/events/${event?.id}/resend`, {});
    assert.deepEqual(every.body.data.endpointIds, [endpointA.body.data.id], 'only the subscribed endpoint');
    await t.worker.drain();
    assert.equal(a.requests.length, 3);
    assert.equal(b.requests.length, 0);
  });

  test('refuses a disabled or unknown endpoint and an unknown event', async () => {
    const { api } = await newWorkspace(t);
    await newCustomer(api);
    const [event] = await events(api);
    const endpoint = await api.post('/webhooks', { url: 'http://127.0.0.1:9/hooks' });
    await api.delete(`/webhooks/${endpoint.body.data.id}`);
    const disabled = await api.post(`/events/${event?.id}/resend`, { endpointId: endpoint.body.data.id });
    assert.equal(disabled.status, 409);
    assert.equal(disabled.body.error.details.status, 'disabled');
    const unknown = await api.post(`/events/${event?.id}/resend`, { endpointId: 'whe_missing' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.details.field, 'endpointId');
    assert.equal((await api.post('/events/evt_missing/resend', {})).status, 404);
  });
});
