import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(async () => {
  await t.close();
});

describe('POST /customers', () => {
  test('creates a customer and answers 201 with the full record in the envelope', async () => {
    const { api } = await newWorkspace(t);
    const res = await api.post('/customers', {
      name: 'Chioma Eze',
      email: 'chioma@example.com',
      phone: '+234 803 123 4567',
      notes: 'Prefers bank transfer',
      metadata: { branch: 'Ikeja' },
    });

    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    assert.equal(typeof res.body.request_id, 'string');
    const { id, createdAt, updatedAt, ...rest } = res.body.data;
    assert.match(id, /^cus_[0-9A-Z]{26}$/);
    assert.deepEqual(rest, {
      name: 'Chioma Eze',
      email: 'chioma@example.com',
      phone: '+2348031234567',
      notes: 'Prefers bank transfer',
      metadata: { branch: 'Ikeja' },
      status: 'active',
      archivedAt: null,
      balances: [],
      timeZone: null,
      optOuts: [],
    });
    assert.match(createdAt, ISO_UTC);
    assert.equal(updatedAt, createdAt);
  });

  test('optional fields default to null and an empty metadata object', async () => {
    const { api } = await newWorkspace(t);
    const res = await api.post('/customers', { name: 'Bayo', phone: '+2348031234568' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.data.email, null);
    assert.equal(res.body.data.notes, null);
    assert.deepEqual(res.body.data.metadata, {});
  });

  test('names every missing required field', async () => {
    const { api } = await newWorkspace(t);
    const res = await api.post('/customers', {});
    assert.equal(res.status, 422);
    assert.equal(res.body.success, false);
    assert.equal(res.body.error.code, 'validation_error');
    assert.ok(res.body.error.details.fields.name, JSON.stringify(res.body));
    assert.ok(res.body.error.details.fields.phone, JSON.stringify(res.body));
  });

  const invalidBodies: Array<[string, Record<string, unknown>, string]> = [
    ['a phone without the international prefix', { phone: '08031234567' }, 'phone'],
    ['a phone that is not a number', { phone: 'call me maybe' }, 'phone'],
    ['a malformed e-mail', { email: 'not-an-email' }, 'email'],
    ['a name over 200 characters', { name: 'x'.repeat(201) }, 'name'],
    ['a blank name', { name: '   ' }, 'name'],
    ['notes over 2000 characters', { notes: 'x'.repeat(2001) }, 'notes'],
    [
      'metadata with 51 keys',
      { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) },
      'metadata',
    ],
    ['metadata with a non-string value', { metadata: { tier: 3 } }, 'metadata'],
    ['an unknown field', { nickname: 'Ada' }, 'nickname'],
  ];
  for (const [label, override, field] of invalidBodies) {
    test(`refuses ${label} with 422 naming ${field}`, async () => {
      const { api } = await newWorkspace(t);
      const res = await api.post('/customers', { name: 'Ada Obi', phone: '+2348031234569', ...override });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'validation_error');
      const fields = Object.keys(res.body.error.details.fields);
      assert.ok(
        fields.some((name) => name === field || name.startsWith(`${field}.`)),
        `expected ${field} in ${fields.join(', ')}`,
      );
      const list = await api.get('/customers');
      assert.deepEqual(list.body.data.items, []);
    });
  }
});

describe('GET /customers/{id}', () => {
  test('returns the customer', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api, { email: 'ada@example.com' });
    const res = await api.get(`/customers/${customer.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.success, true);
    assert.deepEqual(res.body.data, customer);
  });

  test('answers 404 not_found for an id that is not there', async () => {
    const { api } = await newWorkspace(t);
    await newCustomer(api);
    const res = await api.get('/customers/cus_01J00000000000000000000000');
    assert.equal(res.status, 404);
    assert.equal(res.body.success, false);
    assert.equal(res.body.error.code, 'not_found');
  });
});

describe('PATCH /customers/{id}', () => {
  test('changes name, clears email with null, replaces metadata and moves updatedAt', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api, { email: 'old@example.com', metadata: { a: '1' } });
    t.clock.advance(60_000);

    const res = await api.patch(`/customers/${customer.id}`, {
      name: 'Ada Obi-Nwosu',
      email: null,
      metadata: { branch: 'Yaba' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const updated = res.body.data;
    assert.equal(updated.name, 'Ada Obi-Nwosu');
    assert.equal(updated.email, null);
    assert.deepEqual(updated.metadata, { branch: 'Yaba' });
    assert.equal(updated.phone, customer.phone);
    assert.equal(updated.createdAt, customer.createdAt);
    assert.match(updated.updatedAt, ISO_UTC);
    assert.ok(Date.parse(updated.updatedAt) > Date.parse(customer.updatedAt), 'updatedAt moved forward');

    const fetched = await api.get(`/customers/${customer.id}`);
    assert.deepEqual(fetched.body.data, updated);
  });

  test('refuses an unknown field with 422 and changes nothing', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const res = await api.patch(`/customers/${customer.id}`, { name: 'New', nickname: 'x' });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'validation_error');
    assert.ok(res.body.error.details.fields.nickname);
    const fetched = await api.get(`/customers/${customer.id}`);
    assert.equal(fetched.body.data.name, customer.name);
  });

  test('normalises a new phone and refuses one that is not international', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const res = await api.patch(`/customers/${customer.id}`, { phone: '+234 (805) 111-2233' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.phone, '+2348051112233');

    const bad = await api.patch(`/customers/${customer.id}`, { phone: '0805 111 2233' });
    assert.equal(bad.status, 422);
    assert.ok(bad.body.error.details.fields.phone);
    const fetched = await api.get(`/customers/${customer.id}`);
    assert.equal(fetched.body.data.phone, '+2348051112233');
  });

  test('answers 404 for an unknown customer', async () => {
    const { api } = await newWorkspace(t);
    const res = await api.patch('/customers/cus_01J00000000000000000000000', { name: 'x' });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
  });
});

describe('DELETE /customers/{id}', () => {
  test('archives the customer; archiving twice or updating after is 409 invalid_state', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    t.clock.advance(1_000);

    const res = await api.delete(`/customers/${customer.id}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, 'archived');
    assert.match(res.body.data.archivedAt, ISO_UTC);
    assert.equal(res.body.data.id, customer.id);

    const again = await api.delete(`/customers/${customer.id}`);
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'invalid_state');
    assert.equal(again.body.error.details.status, 'archived');
    assert.equal(typeof again.body.error.details.action, 'string');

    const patch = await api.patch(`/customers/${customer.id}`, { name: 'Too late' });
    assert.equal(patch.status, 409);
    assert.equal(patch.body.error.code, 'invalid_state');
    assert.equal(patch.body.error.details.status, 'archived');
    assert.equal(typeof patch.body.error.details.action, 'string');

    const fetched = await api.get(`/customers/${customer.id}`);
    assert.equal(fetched.body.data.name, customer.name);
    assert.equal(fetched.body.data.status, 'archived');
  });

  test('an archived customer cannot get a new payment plan', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    await api.delete(`/customers/${customer.id}`);

    const res = await api.post('/tracks', { customerId: customer.id, title: 'TV', amount: 50_000 });
    assert.equal(res.status, 409, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'invalid_state');
    assert.equal(res.body.error.details.status, 'archived');
    const tracks = await api.get('/tracks');
    assert.deepEqual(tracks.body.data.items, []);
  });

  test('answers 404 for an unknown customer', async () => {
    const { api } = await newWorkspace(t);
    const res = await api.delete('/customers/cus_01J00000000000000000000000');
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
  });
});

describe('GET /customers filters', () => {
  const ids = (res: { body: { data: { items: Array<{ id: string }> } } }) =>
    res.body.data.items.map((c) => c.id).sort();

  test('status keeps active or archived customers', async () => {
    const { api } = await newWorkspace(t);
    const active = await newCustomer(api);
    const archived = await newCustomer(api);
    await api.delete(`/customers/${archived.id}`);

    assert.deepEqual(ids(await api.get('/customers?status=active')), [active.id]);
    assert.deepEqual(ids(await api.get('/customers?status=archived')), [archived.id]);
    assert.deepEqual(ids(await api.get('/customers')), [active.id, archived.id].sort());
    const bad = await api.get('/customers?status=deleted');
    assert.equal(bad.status, 422);
    assert.ok(bad.body.error.details.fields.status);
  });

  test('q matches name, email or phone, case-insensitively', async () => {
    const { api } = await newWorkspace(t);
    const ngozi = await newCustomer(api, { name: 'Ngozi Adeyemi', phone: '+2348051112233' });
    const tunde = await newCustomer(api, {
      name: 'Tunde',
      email: 'Tunde.Bakare@Example.com',
      phone: '+2348064445566',
    });
    const kemi = await newCustomer(api, { name: 'Kemi', phone: '+2348077778899' });

    assert.deepEqual(ids(await api.get('/customers?q=ADEYEMI')), [ngozi.id]);
    assert.deepEqual(ids(await api.get('/customers?q=bakare%40example')), [tunde.id]);
    assert.deepEqual(ids(await api.get('/customers?q=7777889')), [kemi.id]);
    assert.deepEqual(ids(await api.get('/customers?q=nobody-matches')), []);
  });

  test('q treats %, _ and \\ as literal characters', async () => {
    const { api } = await newWorkspace(t);
    const percent = await newCustomer(api, { name: '100% Foods' });
    const plain = await newCustomer(api, { name: '1000 Foods' });
    const underscore = await newCustomer(api, { name: 'ada_obi' });
    const lookalike = await newCustomer(api, { name: 'adaXobi' });
    const backslash = await newCustomer(api, { name: 'Back\\slash Ltd' });

    assert.deepEqual(ids(await api.get(`/customers?q=${encodeURIComponent('%')}`)), [percent.id]);
    assert.deepEqual(ids(await api.get(`/customers?q=${encodeURIComponent('100%')}`)), [percent.id]);
    assert.deepEqual(ids(await api.get('/customers?q=a_o')), [underscore.id]);
    assert.deepEqual(ids(await api.get('/customers?q=ada')), [lookalike.id, underscore.id].sort());
    assert.deepEqual(ids(await api.get('/customers?q=Foods')), [percent.id, plain.id].sort());
    assert.deepEqual(ids(await api.get(`/customers?q=${encodeURIComponent('k\\s')}`)), [backslash.id]);
  });
});

describe('GET /customers/{id}/ledger', () => {
  test("lists the plan.charged and payment.recorded entries of the customer's plans only", async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const track = await newTrack(api, { customerId: customer.id, amount: 10_000 });
    const payment = await newPayment(api, track.id, { amount: 2_500 });
    await newTrack(api);

    const res = await api.get(`/customers/${customer.id}/ledger`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const entries = res.body.data.items;
    assert.equal(res.body.data.has_more, false);
    assert.deepEqual(
      entries.map((e: { type: string }) => e.type),
      ['payment.recorded', 'plan.charged'],
    );
    for (const entry of entries) {
      assert.equal(entry.customerId, customer.id);
      assert.equal(entry.trackId, track.id);
    }
    const [paid, charged] = entries;
    assert.equal(charged.amount, 10_000);
    assert.equal(charged.balanceAfter, 10_000);
    assert.equal(paid.amount, -2_500);
    assert.equal(paid.balanceAfter, 7_500);
    assert.equal(paid.refs.paymentId, payment.id);
  });

  test('answers 404 for an unknown customer', async () => {
    const { api } = await newWorkspace(t);
    const res = await api.get('/customers/cus_01J00000000000000000000000/ledger');
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
  });
});
