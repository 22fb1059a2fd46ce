import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ApiResponse } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(async () => {
  await t.close();
});

function assertForbidden(res: ApiResponse, scope: string): void {
  assert.equal(res.status, 403, JSON.stringify(res.body));
  assert.equal(res.body.success, false);
  assert.equal(res.body.error.code, 'forbidden');
  assert.equal(res.body.error.details.required_scope, scope);
  assert.equal(typeof res.body.request_id, 'string');
}

function assertOk(res: ApiResponse, status = 200): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.success, true);
}

/** A workspace with one customer, plan and payment made with the all-scopes key. */
async function seeded() {
  const ws = await newWorkspace(t);
  const customer = await newCustomer(ws.api);
  const track = await newTrack(ws.api, { customerId: customer.id, amount: 50_000 });
  const payment = await newPayment(ws.api, track.id, { amount: 5_000 });
  // As it now reads, with what it owes.
  return { ws, customer: (await ws.api.get(`/customers/${customer.id}`)).body.data, track, payment };
}

describe('tracks:read', () => {
  test('reads plans, their payments and their ledger', async () => {
    const { ws, track } = await seeded();
    const { api } = await newKey(t, ws.workspaceId, { scopes: ['tracks:read'] });

    assertOk(await api.get('/tracks'));
    assertOk(await api.get(`/tracks/${track.id}`));
    const payments = await api.get(`/tracks/${track.id}/payments`);
    assertOk(payments);
    assert.equal(payments.body.data.items.length, 1);
    const ledger = await api.get(`/tracks/${track.id}/ledger`);
    assertOk(ledger);
    assert.equal(ledger.body.data.items.length, 2);
  });

  test('cannot create, update or archive a plan, and the refused request changes nothing', async () => {
    const { ws, customer, track } = await seeded();
    const { api } = await newKey(t, ws.workspaceId, { scopes: ['tracks:read'] });

    assertForbidden(
      await api.post('/tracks', { customerId: customer.id, title: 'TV', amount: 10_000 }),
      'tracks:write',
    );
    assertForbidden(await api.patch(`/tracks/${track.id}`, { title: 'Renamed' }), 'tracks:write');
    assertForbidden(await api.delete(`/tracks/${track.id}`), 'tracks:write');

    const list = await ws.api.get('/tracks');
    assert.deepEqual(
      list.body.data.items.map((item: { id: string }) => item.id),
      [track.id],
    );
    const current = await ws.api.get(`/tracks/${track.id}`);
    assert.equal(current.body.data.title, track.title);
    assert.equal(current.body.data.status, 'active');
  });

  test('is checked before the body is validated', async () => {
    const { ws } = await seeded();
    const { api } = await newKey(t, ws.workspaceId, { scopes: ['tracks:read'] });
    assertForbidden(await api.post('/tracks', { nonsense: true }), 'tracks:write');
  });

  test('does not reach other resources', async () => {
    const { ws, customer, payment } = await seeded();
    const { api } = await newKey(t, ws.workspaceId, { scopes: ['tracks:read'] });
    assertForbidden(await api.get('/customers'), 'customers:read');
    assertForbidden(await api.get(`/customers/${customer.id}`), 'customers:read');
    assertForbidden(await api.get('/payments'), 'payments:read');
    assertForbidden(await api.get(`/payments/${payment.id}`), 'payments:read');
    assertForbidden(await api.get('/ledger'), 'ledger:read');
  });
});

describe('tracks:write', () => {
  test('implies tracks:read and can create, update and archive plans', async () => {
    const { ws, customer, track } = await seeded();
    const { api } = await newKey(t, ws.workspaceId, { scopes: ['tracks:write'] });

    assertOk(await api.get('/tracks'));
    assertOk(await api.get(`/tracks/${track.id}`));
    assertOk(await api.get(`/tracks/${track.id}/payments`));
    assertOk(await api.get(`/tracks/${track.id}/ledger`));
    const created = await api.post('/tracks', { customerId: customer.id, title: 'TV', amount: 10_000 });
    assertOk(created, 201);
    assertOk(await api.patch(`/tracks/${created.body.data.id}`, { title: 'Television' }));
    assertOk(await api.delete(`/tracks/${created.body.data.id}`));
  });

  test('does not imply the write scope of another resource', async () => {
    const { ws, track } = await seeded();
    const { api } = await newKey(t, ws.workspaceId, { scopes: ['tracks:write'] });
    assertForbidden(await api.post('/payments', { trackId: track.id, amount: 100 }), 'payments:write');
    assertForbidden(await api.post('/customers', { name: 'X', phone: '+2348031234567' }), 'customers:write');

    const balance = await ws.api.get(`/tracks/${track.id}`);
    assert.equal(balance.body.data.balance, 45_000);
    const customers = await ws.api.get('/customers');
    assert.equal(customers.body.data.items.length, 1);
  });
});

describe('payments scopes', () => {
  test('payments:write records and reads payments but cannot read customers', async () => {
    const { ws, track, payment } = await seeded();
    const { api } = await newKey(t, ws.workspaceId, { scopes: ['payments:write'] });

    const created = await api.post('/payments', { trackId: track.id, amount: 1_000, method: 'cash' });
    assertOk(created, 201);
    assertOk(await api.get('/payments'));
    assertOk(await api.get(`/payments/${payment.id}`));
    assertForbidden(await api.get('/customers'), 'customers:read');
    assertForbidden(await api.get(`/tracks/${track.id}`), 'tracks:read');
    assertForbidden(await api.get(`/tracks/${track.id}/payments`), 'tracks:read');

    const current = await ws.api.get(`/tracks/${track.id}`);
    assert.equal(current.body.data.balance, 44_000);
  });

  test('payments:read cannot record a payment, and the balance stays', async () => {
    const { ws, track } = await seeded();
    const { api } = await newKey(t, ws.workspaceId, { scopes: ['payments:read'] });

    assertOk(await api.get('/payments'));
    assertForbidden(await api.post('/payments', { trackId: track.id, amount: 1_000 }), 'payments:write');

    const current = await ws.api.get(`/tracks/${track.id}`);
    assert.equal(current.body.data.balance, 45_000);
    const payments = await ws.api.get('/payments');
    assert.equal(payments.body.data.items.length, 1);
  });
});

describe('ledger scopes follow the first path segment', () => {
  test('/customers/{id}/ledger needs customers:read, not ledger:read', async () => {
    const { ws, customer } = await seeded();
    const ledgerOnly = await newKey(t, ws.workspaceId, { scopes: ['ledger:read'] });
    const customersOnly = await newKey(t, ws.workspaceId, { scopes: ['customers:read'] });

    assertForbidden(await ledgerOnly.api.get(`/customers/${customer.id}/ledger`), 'customers:read');
    const res = await customersOnly.api.get(`/customers/${customer.id}/ledger`);
    assertOk(res);
    assert.equal(res.body.data.items.length, 2);
  });

  test('/tracks/{id}/ledger needs tracks:read, not ledger:read', async () => {
    const { ws, track } = await seeded();
    const { api } = await newKey(t, ws.workspaceId, { scopes: ['ledger:read'] });
    assertForbidden(await api.get(`/tracks/${track.id}/ledger`), 'tracks:read');
  });

  test('/ledger needs ledger:read', async () => {
    const { ws } = await seeded();
    const customersOnly = await newKey(t, ws.workspaceId, { scopes: ['customers:read', 'tracks:read'] });
    const ledgerOnly = await newKey(t, ws.workspaceId, { scopes: ['ledger:read'] });

    assertForbidden(await customersOnly.api.get('/ledger'), 'ledger:read');
    const res = await ledgerOnly.api.get('/ledger');
    assertOk(res);
    assert.equal(res.body.data.items.length, 2);
  });
});

describe('customers scopes', () => {
  test('customers:read cannot create, update or archive, and nothing changes', async () => {
    const { ws, customer } = await seeded();
    const { api } = await newKey(t, ws.workspaceId, { scopes: ['customers:read'] });

    assertOk(await api.get(`/customers/${customer.id}`));
    assertForbidden(
      await api.post('/customers', { name: 'New', phone: '+2348031234567' }),
      'customers:write',
    );
    assertForbidden(await api.patch(`/customers/${customer.id}`, { name: 'Renamed' }), 'customers:write');
    assertForbidden(await api.delete(`/customers/${customer.id}`), 'customers:write');

    const list = await ws.api.get('/customers');
    assert.deepEqual(list.body.data.items, [customer]);
  });

  test('a key with several scopes gets exactly their union', async () => {
    const { ws, customer, track } = await seeded();
    const { api } = await newKey(t, ws.workspaceId, { scopes: ['customers:write', 'payments:read'] });

    assertOk(await api.patch(`/customers/${customer.id}`, { notes: 'VIP' }));
    assertOk(await api.get('/payments'));
    assertForbidden(await api.get(`/tracks/${track.id}`), 'tracks:read');
    assertForbidden(await api.post('/payments', { trackId: track.id, amount: 100 }), 'payments:write');
  });
});
