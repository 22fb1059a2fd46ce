import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { client } from '../helpers/api.js';
import { buildTestApp, freshDatabase, type TestApp, type TestDatabase } from '../helpers/app.js';
import { newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

describe('restart', () => {
  let database: TestDatabase;
  let receiver: http.Server;
  const received: { type: string; id: string }[] = [];

  before(async () => {
    database = await freshDatabase();
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    await new Promise((resolve) => receiver.close(resolve));
    await database.drop();
  });

  test('closing and reopening the service loses no record, balance, ledger entry or queued event', async () => {
    const first: TestApp = await buildTestApp({ database });
    const ws = await newWorkspace(first);
    const { port } = receiver.address() as AddressInfo;
    const endpoint = await ws.api.post('/webhooks', { url: `http://127.0.0.1:${port}/hooks` });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    const plan = await newTrack(ws.api, { amount: 5_000 });
    const payments = [];
    for (let i = 0; i < 5; i++) payments.push(await newPayment(ws.api, plan.id, { amount: 100 + i }));
    // Stop before the worker ran: the events are only in the outbox.
    await first.close({ drop: false });
    assert.equal(received.length, 0);

    const second = await buildTestApp({ database });
    try {
      const api = client(second, ws.testKey);
      const reread = await api.get(`/tracks/${plan.id}`);
      assert.equal(reread.status, 200);
      assert.equal(reread.body.data.balance, 5_000 - (100 + 101 + 102 + 103 + 104));
      const listed = await api.get(`/tracks/${plan.id}/payments`);
      assert.deepEqual(
        listed.body.data.items.map((p: { id: string }) => p.id).sort(),
        payments.map((p) => p.id).sort(),
      );
      const ledger = await api.get(`/tracks/${plan.id}/ledger`);
      assert.equal(ledger.body.data.items.length, 6);

      await second.worker.drain();
      await second.worker.drain();
      const types = received.map((e) => e.type).sort();
      assert.deepEqual(types, [
        'customer.created',
        'payment.recorded',
        'payment.recorded',
        'payment.recorded',
        'payment.recorded',
        'payment.recorded',
        'track.created',
        'track.updated',
        'track.updated',
        'track.updated',
        'track.updated',
        'track.updated',
      ]);
    } finally {
      await second.close({ drop: false });
    }
  });
});
