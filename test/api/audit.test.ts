import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { consolePerson, consolePost } from '../helpers/console.js';
import { newCustomer, newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

// The audit trail: each change a key makes through the API leaves one entry, written with the change, with the
// key as its actor, the fields that changed (before and after) and the reason; nothing can change an entry.

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

describe('audit log', () => {
  test('a customer created then renamed through the API leaves two entries, by the key, with what changed', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const key = await newKey(t, workspaceId);
    const customer = await newCustomer(key.api, { name: 'Ada Obi' });
    const renamed = await key.api.patch(`/customers/${customer.id}`, { name: 'Ada Obi-Eze' });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));

    const log = await api.get(`/audit-log?record_id=${customer.id}`);
    assert.equal(log.status, 200, JSON.stringify(log.body));
    const [update, create] = log.body.data.items;
    assert.equal(log.body.data.items.length, 2);
    assert.match(update.id, /^aud_/);
    assert.deepEqual(update.actor, { type: 'key', id: key.id });
    assert.equal(update.action, 'customers.update');
    assert.deepEqual(update.record, { type: 'customer', id: customer.id });
    assert.deepEqual(update.changes, { name: ['Ada Obi', 'Ada Obi-Eze'] });
    assert.equal(update.requestId, renamed.headers['x-request-id']);
    assert.equal(create.action, 'customers.create');
    assert.deepEqual(create.changes.name, [null, 'Ada Obi']);

    const byActor = await api.get(`/audit-log?actor_id=${key.id}`);
    assert.equal(byActor.body.data.items.length, 2);
  });

  test('a reversal records its reason and the status it changed; a refused change leaves nothing', async () => {
    const { api } = await newWorkspace(t);
    const track = await newTrack(api, { amount: 100_000 });
    const payment = await newPayment(api, track.id, { amount: 40_000 });
    const refused = await api.post('/payments', { trackId: track.id, amount: -5 });
    assert.ok(refused.status >= 400);
    const reversed = await api.post(`/payments/${payment.id}/reverse`, { reason: 'Cheque bounced' });
    assert.equal(reversed.status, 200, JSON.stringify(reversed.body));
    const log = await api.get(`/audit-log?record_id=${payment.id}`);
    const actions = log.body.data.items.map((e: { action: string }) => e.action);
    assert.deepEqual(actions, ['payments.reverse', 'payments.create']);
    const [reversal] = log.body.data.items;
    assert.equal(reversal.reason, 'Cheque bounced');
    assert.deepEqual(reversal.changes.status, ['recorded', 'reversed']);
  });

  test('filters by time; needs account:read; reads only its own workspace and mode', async () => {
    const { api, live, workspaceId } = await newWorkspace(t);
    await newCustomer(api);
    const from = t.clock.now().toISOString();
    t.clock.advance(60_000);
    await newCustomer(api);
    const since = await api.get(`/audit-log?from=${encodeURIComponent(from)}`);
    assert.ok(since.body.data.items.length >= 1);
    const until = await api.get(`/audit-log?to=${encodeURIComponent(from)}`);
    assert.equal(until.body.data.items.length + since.body.data.items.length, 2);
    assert.equal((await live.get('/audit-log')).body.data.items.length, 0);
    const other = await newWorkspace(t);
    assert.equal((await other.api.get('/audit-log')).body.data.items.length, 0);
    const narrow = await newKey(t, workspaceId, { scopes: ['customers:read'] });
    assert.equal((await narrow.api.get('/audit-log')).status, 403);
    const bad = await api.get('/audit-log?from=yesterday');
    assert.equal(bad.status, 422);
    assert.ok(bad.body.error.details.fields.from);
  });

  test('a payment recorded with a key and one recorded in the console each leave one entry, with their actor', async () => {
    const owner = await consolePerson(t, 'owner');
    const key = await newKey(t, owner.workspaceId);
    const track = await newTrack(key.api, { amount: 100_000 });
    const byKey = await newPayment(key.api, track.id, { amount: 10_000 });
    const form = await consolePost(t, owner, '/console/payments', {
      idempotency_key: randomUUID(),
      track_id: track.id,
      amount: '200.00',
      method: 'cash',
    });
    assert.equal(form.statusCode, 303, form.body);
    const byPerson = /\/console\/payments\/(pay_\w+)/.exec(String(form.headers.location))?.[1];
    assert.ok(byPerson);
    for (const [id, actor] of [
      [byKey.id, { type: 'key', id: key.id }],
      [byPerson, { type: 'user', id: owner.id }],
    ] as const) {
      const entries = (await key.api.get(`/audit-log?record_id=${id}`)).body.data.items;
      assert.equal(entries.length, 1, `one entry for ${id}`);
      assert.deepEqual(entries[0].actor, actor);
      assert.equal(entries[0].action, 'payments.create');
      assert.deepEqual(entries[0].record, { type: 'payment', id });
    }
  });

  test('the database refuses to change or delete an entry', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    await assert.rejects(
      sql`update audit_entries set action = 'nothing' where record_id = ${customer.id}`.execute(t.ctx.db),
      /append-only/,
    );
    await assert.rejects(
      sql`delete from audit_entries where record_id = ${customer.id}`.execute(t.ctx.db),
      /append-only/,
    );
    const log = await api.get(`/audit-log?record_id=${customer.id}`);
    assert.equal(log.body.data.items[0].action, 'customers.create');
  });
});
