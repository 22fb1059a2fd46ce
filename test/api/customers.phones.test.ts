import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ApiResponse, Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newWorkspace } from '../helpers/factories.js';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const ADA = '+2348031234567';
/** The same Nigerian number as people write it. */
const WRITTEN = ['08031234567', '0803 123 4567', '803-123-4567', '(0803) 123-4567', '+234 803 123 4567', ADA];

const ids = (res: ApiResponse) => {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.items.map((c: { id: string }) => c.id).sort();
};
const query = (value: string) => encodeURIComponent(value);

async function create(api: Client, phone: string, name = 'Ada Obi') {
  const res = await api.post('/customers', { name, phone });
  assert.equal(res.status, 201, `${phone}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

describe('phones written without a country code', () => {
  test('are read in the workspace country and stored E.164, on create and on update', async () => {
    const { api } = await newWorkspace(t, { country: 'NG' });
    for (const phone of WRITTEN) assert.equal((await create(api, phone)).phone, ADA, phone);

    const customer = await newCustomer(api);
    const updated = await api.patch(`/customers/${customer.id}`, { phone: '0805 111 2233' });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(updated.body.data.phone, '+2348051112233');
    assert.equal((await api.get(`/customers/${customer.id}`)).body.data.phone, '+2348051112233');
    // A number of another country keeps its own code.
    assert.equal((await create(api, '+44 20 7946 0958')).phone, '+442079460958');
  });

  test('a number that is not valid in the country is refused, naming phone', async () => {
    const { api } = await newWorkspace(t, { country: 'NG' });
    for (const phone of ['12345', '0803 123', 'call me maybe']) {
      const res = await api.post('/customers', { name: 'Ada', phone });
      assert.equal(res.status, 422, phone);
      assert.equal(res.body.error.code, 'validation_error');
      assert.match(res.body.error.details.fields.phone, /valid in NG/, phone);
    }
  });

  test('without a workspace country they are refused, saying to give the country code or set the country', async () => {
    const ws = await newWorkspace(t);
    const res = await ws.api.post('/customers', { name: 'Ada', phone: '08031234567' });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'validation_error');
    assert.match(res.body.error.details.fields.phone, /country code/);
    assert.match(res.body.error.details.fields.phone, /workspace's country/);
    assert.deepEqual(ids(await ws.api.get('/customers')), []);

    const customer = await create(ws.api, ADA);
    const update = await ws.api.patch(`/customers/${customer.id}`, { phone: '0805 111 2233' });
    assert.equal(update.status, 422);
    assert.match(update.body.error.details.fields.phone, /country code/);
    assert.equal((await ws.api.get(`/customers/${customer.id}`)).body.data.phone, ADA);

    // Once the workspace has a country, the same request is read in it, in both modes.
    assert.equal((await ws.api.patch('/account', { country: 'NG' })).status, 200);
    assert.equal((await create(ws.api, '08031234567')).phone, ADA);
    assert.equal((await create(ws.live, '0803 123 4567')).phone, ADA);
  });
});

describe('finding customers by phone', () => {
  test('q matches any written form of a number, besides name, e-mail and digits contained', async () => {
    const { api } = await newWorkspace(t, { country: 'NG' });
    const ada = await create(api, '0803 123 4567', 'Ada Obi');
    const other = await create(api, '+2348051112233', 'Bayo');
    for (const written of WRITTEN) {
      assert.deepEqual(ids(await api.get(`/customers?q=${query(written)}`)), [ada.id], written);
    }
    assert.deepEqual(ids(await api.get('/customers?q=Bayo')), [other.id]);
    assert.deepEqual(ids(await api.get('/customers?q=5111')), [other.id]);
    assert.deepEqual(ids(await api.get(`/customers?q=${query('0809 999 9999')}`)), []);
  });

  test('phone= finds every customer with the number, in any written form; two customers may share one', async () => {
    const { api } = await newWorkspace(t, { country: 'NG' });
    const first = await create(api, '08031234567', 'Ada Obi');
    const second = await create(api, '+234 803 123 4567', 'Ada’s shop');
    const third = await create(api, '0805 111 2233', 'Bayo');
    assert.equal(first.phone, second.phone);
    for (const written of WRITTEN) {
      assert.deepEqual(
        ids(await api.get(`/customers?phone=${query(written)}`)),
        [first.id, second.id].sort(),
      );
    }
    assert.deepEqual(ids(await api.get(`/customers?phone=${query('08051112233')}`)), [third.id]);
    assert.deepEqual(ids(await api.get(`/customers?phone=${query('0809 999 9999')}`)), []);
    // Combined with other filters and paginated like any list.
    assert.deepEqual(ids(await api.get(`/customers?phone=${query(ADA)}&q=shop`)), [second.id]);
    const page = await api.get(`/customers?phone=${query(ADA)}&limit=1`);
    assert.equal(page.body.data.items.length, 1);
    assert.equal(page.body.data.has_more, true);
    const next = await api.get(`/customers?phone=${query(ADA)}&limit=1&cursor=${page.body.data.next_cursor}`);
    assert.deepEqual([...ids(page), ...ids(next)].sort(), [first.id, second.id].sort());
    assert.equal((await api.delete(`/customers/${first.id}`)).status, 200);
    assert.deepEqual(ids(await api.get(`/customers?phone=${query(ADA)}&status=active`)), [second.id]);
  });

  test('phone= that is no phone number is a validation_error naming phone', async () => {
    const ng = await newWorkspace(t, { country: 'NG' });
    const bad = await ng.api.get(`/customers?phone=${query('not a phone')}`);
    assert.equal(bad.status, 422);
    assert.ok(bad.body.error.details.fields.phone);
    const noCountry = await newWorkspace(t);
    const local = await noCountry.api.get('/customers?phone=08031234567');
    assert.equal(local.status, 422);
    assert.match(local.body.error.details.fields.phone, /country code/);
    assert.equal((await noCountry.api.get(`/customers?phone=${query(ADA)}`)).status, 200);
  });

  test("another workspace's or mode's customers with the same number are not found", async () => {
    const one = await newWorkspace(t, { country: 'NG' });
    const two = await newWorkspace(t, { country: 'NG' });
    const mine = await create(one.api, '08031234567');
    await create(two.api, '08031234567');
    await create(one.live, '08031234567');
    assert.deepEqual(ids(await one.api.get('/customers?phone=08031234567')), [mine.id]);
    assert.deepEqual(ids(await one.api.get('/customers?q=08031234567')), [mine.id]);
  });
});
