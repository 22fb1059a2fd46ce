import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(async () => {
  await t.close();
});

interface Page {
  items: Array<{ id: string }>;
  has_more: boolean;
  next_cursor: string | null;
}

function withQuery(path: string, query: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}${query}`;
}

async function getPage(api: Client, path: string): Promise<Page> {
  const res = await api.get(path);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const page = res.body.data as Page;
  assert.equal(page.has_more, page.next_cursor !== null, 'next_cursor is set exactly when has_more');
  return page;
}

/** Follows next_cursor to the end; returns every id in the order served and the page sizes. */
async function walk(api: Client, path: string, limit: number): Promise<{ ids: string[]; sizes: number[] }> {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `limit=${limit}&cursor=${encodeURIComponent(cursor)}` : `limit=${limit}`;
    const page = await getPage(api, withQuery(path, query));
    ids.push(...page.items.map((item) => item.id));
    sizes.push(page.items.length);
    cursor = page.next_cursor;
    assert.ok(sizes.length <= 50, 'the walk ends');
  } while (cursor);
  return { ids, sizes };
}

const newestFirst = <T>(created: T[]): T[] => [...created].reverse();

async function createCustomers(api: Client, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await newCustomer(api, { name: `Customer ${i}` })).id);
  return ids;
}

describe('limit', () => {
  test('defaults to 20', async () => {
    const { api } = await newWorkspace(t);
    const created = await createCustomers(api, 21);

    const first = await getPage(api, '/customers');
    assert.equal(first.items.length, 20);
    assert.equal(first.has_more, true);
    assert.deepEqual(
      first.items.map((c) => c.id),
      newestFirst(created).slice(0, 20),
    );

    const second = await getPage(api, `/customers?cursor=${encodeURIComponent(first.next_cursor!)}`);
    assert.deepEqual(
      second.items.map((c) => c.id),
      [created[0]],
    );
    assert.equal(second.has_more, false);
    assert.equal(second.next_cursor, null);
  });

  test('accepts 1 and 100', async () => {
    const { api } = await newWorkspace(t);
    await createCustomers(api, 2);
    assert.equal((await getPage(api, '/customers?limit=1')).items.length, 1);
    assert.equal((await getPage(api, '/customers?limit=100')).items.length, 2);
  });

  for (const path of ['/customers', '/tracks', '/payments', '/ledger']) {
    for (const bad of ['0', '101', 'abc', '-1', '2.5']) {
      test(`${path}?limit=${bad} is 422 naming limit`, async () => {
        const { api } = await newWorkspace(t);
        const res = await api.get(`${path}?limit=${bad}`);
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.equal(res.body.error.code, 'validation_error');
        assert.ok(res.body.error.details.fields.limit, JSON.stringify(res.body));
      });
    }
  }

  test('an empty list has no more pages', async () => {
    const { api } = await newWorkspace(t);
    const page = await getPage(api, '/customers');
    assert.deepEqual(page, { items: [], has_more: false, next_cursor: null });
  });
});

describe('cursor walks', () => {
  test('/customers: every item exactly once, newest first', async () => {
    const { api } = await newWorkspace(t);
    const created = await createCustomers(api, 12);
    const { ids, sizes } = await walk(api, '/customers', 5);
    assert.deepEqual(ids, newestFirst(created));
    assert.deepEqual(sizes, [5, 5, 2]);
  });

  test('an exact multiple of the limit ends without an empty page', async () => {
    const { api } = await newWorkspace(t);
    const created = await createCustomers(api, 6);
    const { ids, sizes } = await walk(api, '/customers', 3);
    assert.deepEqual(ids, newestFirst(created));
    assert.deepEqual(sizes, [3, 3]);
  });

  test('/tracks: every item exactly once, newest first', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const created: string[] = [];
    for (let i = 0; i < 11; i++)
      created.push((await newTrack(api, { customerId: customer.id, title: `Plan ${i}` })).id);
    const { ids, sizes } = await walk(api, '/tracks', 4);
    assert.deepEqual(ids, newestFirst(created));
    assert.deepEqual(sizes, [4, 4, 3]);
  });

  test('/payments: every item exactly once, newest first', async () => {
    const { api } = await newWorkspace(t);
    const track = await newTrack(api, { amount: 1_000_000 });
    const created: string[] = [];
    for (let i = 0; i < 11; i++) created.push((await newPayment(api, track.id, { amount: 100 + i })).id);
    const { ids, sizes } = await walk(api, '/payments', 4);
    assert.deepEqual(ids, newestFirst(created));
    assert.deepEqual(sizes, [4, 4, 3]);
  });

  test('/ledger: every entry exactly once, newest first', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const expected: Array<{ type: string; ref: string }> = [];
    for (let i = 0; i < 4; i++) {
      const track = await newTrack(api, { customerId: customer.id, amount: 10_000 });
      expected.push({ type: 'plan.charged', ref: track.id });
      for (let j = 0; j < 2; j++) {
        const payment = await newPayment(api, track.id, { amount: 1_000 });
        expected.push({ type: 'payment.recorded', ref: payment.id });
      }
    }

    const entries: Array<{ id: string; type: string; trackId: string; refs: Record<string, string> }> = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=5&cursor=${encodeURIComponent(cursor)}` : '?limit=5';
      const page = await getPage(api, `/ledger${query}`);
      entries.push(...(page.items as typeof entries));
      cursor = page.next_cursor;
    } while (cursor);

    assert.equal(new Set(entries.map((e) => e.id)).size, entries.length, 'no duplicates');
    assert.deepEqual(
      entries.map((e) => ({ type: e.type, ref: e.type === 'plan.charged' ? e.trackId : e.refs.paymentId })),
      newestFirst(expected),
    );
  });

  test('items inserted while paging neither repeat nor push out the ones not yet listed', async () => {
    const { api } = await newWorkspace(t);
    const original = newestFirst(await createCustomers(api, 12));

    const first = await getPage(api, '/customers?limit=5');
    assert.deepEqual(
      first.items.map((c) => c.id),
      original.slice(0, 5),
    );
    const inserted = await createCustomers(api, 5);

    const rest: string[] = [];
    let cursor = first.next_cursor;
    while (cursor) {
      const page = await getPage(api, `/customers?limit=5&cursor=${encodeURIComponent(cursor)}`);
      rest.push(...page.items.map((c) => c.id));
      cursor = page.next_cursor;
    }
    assert.deepEqual(rest, original.slice(5));
    for (const id of inserted)
      assert.ok(!rest.includes(id), 'a new item shows up only on a fresh first page');

    const fresh = await getPage(api, '/customers?limit=5');
    assert.deepEqual(
      fresh.items.map((c) => c.id),
      newestFirst(inserted),
    );
  });

  for (const path of ['/customers', '/tracks', '/payments', '/ledger']) {
    for (const garbage of ['garbage', 'eyJ2IjoyfQ', '%%%']) {
      test(`${path} refuses the cursor ${JSON.stringify(garbage)} with 422 naming cursor`, async () => {
        const { api } = await newWorkspace(t);
        const res = await api.get(`${path}?cursor=${encodeURIComponent(garbage)}`);
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.equal(res.body.error.code, 'validation_error');
        assert.ok(res.body.error.details.fields.cursor, JSON.stringify(res.body));
      });
    }
  }

  test('a cursor from one list is refused by another list', async () => {
    const { api } = await newWorkspace(t);
    await createCustomers(api, 3);
    await newTrack(api);
    const customers = await getPage(api, '/customers?limit=1');
    const res = await api.get(`/tracks?cursor=${encodeURIComponent(customers.next_cursor!)}`);
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.ok(res.body.error.details.fields.cursor);
  });
});

describe('filters', () => {
  const listIds = async (api: Client, path: string) => (await walk(api, path, 100)).ids;

  test('/tracks by customerId and status', async () => {
    const { api } = await newWorkspace(t);
    const ada = await newCustomer(api);
    const bola = await newCustomer(api);
    const adaActive = await newTrack(api, { customerId: ada.id, amount: 5_000 });
    const adaCompleted = await newTrack(api, { customerId: ada.id, amount: 1_000 });
    await newPayment(api, adaCompleted.id, { amount: 1_000 });
    const adaArchived = await newTrack(api, { customerId: ada.id });
    await api.delete(`/tracks/${adaArchived.id}`);
    const bolaActive = await newTrack(api, { customerId: bola.id });

    assert.deepEqual(await listIds(api, `/tracks?customerId=${ada.id}`), [
      adaArchived.id,
      adaCompleted.id,
      adaActive.id,
    ]);
    assert.deepEqual(await listIds(api, `/tracks?customerId=${bola.id}`), [bolaActive.id]);
    assert.deepEqual(await listIds(api, '/tracks?status=active'), [bolaActive.id, adaActive.id]);
    assert.deepEqual(await listIds(api, '/tracks?status=completed'), [adaCompleted.id]);
    assert.deepEqual(await listIds(api, '/tracks?status=archived'), [adaArchived.id]);
    assert.deepEqual(await listIds(api, `/tracks?customerId=${ada.id}&status=active`), [adaActive.id]);
    assert.deepEqual(await listIds(api, `/tracks?customerId=${bola.id}&status=completed`), []);

    const bad = await api.get('/tracks?status=paused');
    assert.equal(bad.status, 422);
    assert.ok(bad.body.error.details.fields.status);
  });

  test('/tracks filters hold across pages', async () => {
    const { api } = await newWorkspace(t);
    const ada = await newCustomer(api);
    const other = await newCustomer(api);
    const adas: string[] = [];
    for (let i = 0; i < 5; i++) {
      adas.push((await newTrack(api, { customerId: ada.id })).id);
      await newTrack(api, { customerId: other.id });
    }
    const { ids } = await walk(api, `/tracks?customerId=${ada.id}`, 2);
    assert.deepEqual(ids, newestFirst(adas));
  });

  test('/payments by trackId, customerId, method and paidAt range', async () => {
    const { api } = await newWorkspace(t);
    const ada = await newCustomer(api);
    const bola = await newCustomer(api);
    const adaTrack = await newTrack(api, { customerId: ada.id, amount: 100_000 });
    const adaTrack2 = await newTrack(api, { customerId: ada.id, amount: 100_000 });
    const bolaTrack = await newTrack(api, { customerId: bola.id, amount: 100_000 });

    const jan = await newPayment(api, adaTrack.id, { method: 'cash', paidAt: '2024-01-10T09:00:00Z' });
    const feb = await newPayment(api, adaTrack2.id, {
      method: 'bank_transfer',
      paidAt: '2024-02-10T09:00:00Z',
    });
    const mar = await newPayment(api, bolaTrack.id, { method: 'cash', paidAt: '2024-03-10T09:00:00.000Z' });
    const apr = await newPayment(api, adaTrack.id, {
      method: 'mobile_money',
      paidAt: '2024-04-10T10:00:00+01:00',
    });

    assert.deepEqual(await listIds(api, `/payments?trackId=${adaTrack.id}`), [apr.id, jan.id]);
    assert.deepEqual(await listIds(api, `/payments?customerId=${ada.id}`), [apr.id, feb.id, jan.id]);
    assert.deepEqual(await listIds(api, `/payments?customerId=${bola.id}`), [mar.id]);
    assert.deepEqual(await listIds(api, '/payments?method=cash'), [mar.id, jan.id]);
    assert.deepEqual(await listIds(api, `/payments?method=cash&customerId=${ada.id}`), [jan.id]);

    // from is inclusive, to is exclusive
    assert.deepEqual(await listIds(api, '/payments?from=2024-02-10T09:00:00Z'), [apr.id, mar.id, feb.id]);
    assert.deepEqual(await listIds(api, '/payments?to=2024-03-10T09:00:00Z'), [feb.id, jan.id]);
    assert.deepEqual(
      await listIds(
        api,
        `/payments?from=${encodeURIComponent('2024-02-01T00:00:00+00:00')}&to=2024-04-01T00:00:00Z`,
      ),
      [mar.id, feb.id],
    );
    assert.deepEqual(await listIds(api, '/payments?from=2024-04-10T09:00:00Z&to=2024-04-10T09:00:00.001Z'), [
      apr.id,
    ]);
    assert.deepEqual(await listIds(api, `/payments?trackId=${bolaTrack.id}&method=bank_transfer`), []);

    for (const [query, field] of [
      ['method=bitcoin', 'method'],
      ['from=yesterday', 'from'],
      ['to=2024-13-45', 'to'],
    ]) {
      const bad = await api.get(`/payments?${query}`);
      assert.equal(bad.status, 422, `${query}: ${JSON.stringify(bad.body)}`);
      assert.ok(bad.body.error.details.fields[field as string], JSON.stringify(bad.body));
    }
  });
});
