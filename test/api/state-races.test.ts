import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ApiResponse, Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

/** Events of `type` about `objectId`, as written to the outbox. */
async function eventsAbout(type: string, objectId: string) {
  const rows = await t.ctx.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('type', '=', type)
    .execute();
  return rows.map((row) => JSON.parse(row.data)).filter((object) => object.id === objectId);
}

function statuses(responses: ApiResponse[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const res of responses) {
    const key = res.status === 200 ? '200' : `${res.status} ${res.body.error?.code}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

async function all(n: number, request: () => Promise<ApiResponse>): Promise<ApiResponse[]> {
  return Promise.all(Array.from({ length: n }, request));
}

describe('a state changes once, whatever the number of requests racing for it', () => {
  test('20 concurrent archives of a customer: one 200, 19 invalid_state, one event', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const results = await all(20, () => api.delete(`/customers/${customer.id}`));
    assert.deepEqual(statuses(results), { '200': 1, '409 invalid_state': 19 });
    for (const refused of results.filter((r) => r.status === 409)) {
      assert.equal(refused.body.error.details.status, 'archived');
      assert.equal(refused.body.error.details.action, 'archive');
    }
    const events = await eventsAbout('customer.archived', customer.id);
    assert.equal(events.length, 1);
    const current = await api.get(`/customers/${customer.id}`);
    assert.equal(current.body.data.archivedAt, events[0].archivedAt);
  });

  test('20 concurrent archives of a plan: one 200 and one event', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api);
    const results = await all(20, () => api.delete(`/tracks/${plan.id}`));
    assert.deepEqual(statuses(results), { '200': 1, '409 invalid_state': 19 });
    assert.equal((await eventsAbout('track.archived', plan.id)).length, 1);
  });

  test('20 concurrent disables of a webhook endpoint: one 200', async () => {
    const { api } = await newWorkspace(t);
    const endpoint = await api.post('/webhooks', { url: 'http://127.0.0.1:9/hooks' });
    const results = await all(20, () => api.delete(`/webhooks/${endpoint.body.data.id}`));
    assert.deepEqual(statuses(results), { '200': 1, '409 invalid_state': 19 });
  });

  test('updates racing an archive never edit the archived customer', async () => {
    const { api } = await newWorkspace(t);
    for (let round = 0; round < 5; round++) {
      const customer = await newCustomer(api);
      const [archive, ...updates] = await Promise.all([
        api.delete(`/customers/${customer.id}`),
        ...Array.from({ length: 8 }, (_, i) => api.patch(`/customers/${customer.id}`, { name: `Edit ${i}` })),
      ]);
      assert.equal(archive?.status, 200);
      const archivedName = archive?.body.data.name;
      const after = await api.get(`/customers/${customer.id}`);
      assert.equal(after.body.data.status, 'archived');
      assert.equal(after.body.data.name, archivedName, 'no update landed after the archive');
      for (const update of updates) {
        assert.ok(update.status === 200 || update.status === 409, JSON.stringify(update.body));
        if (update.status === 409) assert.equal(update.body.error.details.status, 'archived');
      }
      const updated = await eventsAbout('customer.updated', customer.id);
      assert.equal(updated.length, updates.filter((u) => u.status === 200).length);
    }
  });

  test('payments racing an archive: none lands on the archived plan, and the balance stays exact', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 10_000 });
    const results = await Promise.all([
      ...Array.from({ length: 10 }, () => api.post('/payments', { trackId: plan.id, amount: 100 })),
      api.delete(`/tracks/${plan.id}`),
      ...Array.from({ length: 10 }, () => api.post('/payments', { trackId: plan.id, amount: 100 })),
    ]);
    const paid = results.filter((r) => r.status === 201).length;
    const after = await api.get(`/tracks/${plan.id}`);
    assert.equal(after.body.data.status, 'archived');
    assert.equal(after.body.data.balance, 10_000 - paid * 100);
    const payments = await api.get(`/tracks/${plan.id}/payments?limit=100`);
    assert.equal(payments.body.data.items.length, paid);
    for (const payment of payments.body.data.items) {
      assert.ok(payment.createdAt <= after.body.data.archivedAt);
    }
  });
});

describe('conditional changes refuse what the state does not allow, on both databases', () => {
  async function archivedCustomer(api: Client) {
    const customer = await newCustomer(api);
    assert.equal((await api.delete(`/customers/${customer.id}`)).status, 200);
    return customer;
  }

  test('an archived customer cannot be updated or archived again, and a missing one is not_found', async () => {
    const { api } = await newWorkspace(t);
    const customer = await archivedCustomer(api);
    const update = await api.patch(`/customers/${customer.id}`, { name: 'Late' });
    assert.equal(update.status, 409);
    assert.deepEqual(update.body.error.details, { status: 'archived', action: 'update' });
    assert.equal((await api.delete('/customers/cus_missing')).status, 404);
    assert.equal((await api.patch('/customers/cus_missing', { name: 'x' })).status, 404);
  });
});
