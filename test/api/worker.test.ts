import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Worker } from '../../src/jobs/worker.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newWorkspace } from '../helpers/factories.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';

describe('background worker', () => {
  let t: TestApp;
  let receiver: Receiver;
  before(async () => {
    t = await buildTestApp();
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  test('two workers on their own connections run every job once between them', async () => {
    const { api } = await newWorkspace(t);
    assert.equal((await api.post('/webhooks', { url: receiver.url })).status, 201);
    const customers = [];
    for (let i = 0; i < 25; i++) customers.push(await newCustomer(api));

    // On PostgreSQL the second worker has its own pool, as another node would. SQLite serves one process
    // through one connection (a second one in the same thread would wait on itself), so there the two
    // workers interleave on it.
    const other = t.handle.dialect === 'postgres' ? t.database.open() : null;
    try {
      const first = new Worker(t.ctx, t.app.log, { batchSize: 5 });
      const second = new Worker({ ...t.ctx, db: other?.db ?? t.ctx.db }, t.app.log, { batchSize: 5 });
      await Promise.all([first.drain(), second.drain()]);
      await Promise.all([first.drain(), second.drain()]);
    } finally {
      await other?.close();
    }

    const delivered = receiver.requests.map((req) => JSON.parse(req.body).data.object.id as string);
    assert.equal(delivered.length, customers.length, 'one delivery per event, none twice');
    assert.deepEqual(new Set(delivered), new Set(customers.map((c) => c.id)));
    const left = await t.ctx.db
      .selectFrom('jobs')
      .select('status')
      .where('status', 'in', ['pending', 'running', 'failed'])
      .execute();
    assert.deepEqual(left, []);
  });

  test('a job whose worker died is taken over once its lock expires', async () => {
    const { api } = await newWorkspace(t);
    const before = receiver.requests.length;
    assert.equal(
      (await api.post('/webhooks', { url: receiver.url, eventTypes: ['customer.created'] })).status,
      201,
    );
    const customer = await newCustomer(api);
    // Claimed by a worker that then vanished: the job stays running until its lock expires.
    await t.ctx.db
      .updateTable('jobs')
      .set({ status: 'running', locked_until: new Date(t.clock.now().getTime() + 60_000).toISOString() })
      .where('status', '=', 'pending')
      .execute();
    assert.equal(await t.worker.drain(), 0, 'a locked job is not run twice');
    t.clock.advance(61_000);
    await t.worker.drain();
    await t.worker.drain();
    const mine = receiver.requests.slice(before).map((req) => JSON.parse(req.body).data.object.id);
    assert.deepEqual(mine, [customer.id]);
  });
});
