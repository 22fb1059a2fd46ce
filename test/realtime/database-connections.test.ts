/**
 * The built server on PostgreSQL when the database ends its connections (a restart, an administrator's
 * `pg_terminate_backend`, a session timeout) while they wait in the pool between requests: the server keeps
 * running and answers the next requests on new connections. SQLite has no connections to lose.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { killChildren } from '../../bench/processes.js';
import { databaseKinds, expect, pgServerUrl, type RealServer, startRealServer } from './server.js';

process.once('exit', killChildren);

/** Ends every connection to `database` but this one's, as an administrator would; how many it ended. */
async function endConnections(database: string): Promise<number> {
  const admin = new pg.Client({ connectionString: new URL('postgres', pgServerUrl).toString() });
  await admin.connect();
  try {
    const { rows } = await admin.query(
      'select pg_terminate_backend(pid) as ended from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [database],
    );
    return rows.filter((row) => row.ended === true).length;
  } finally {
    await admin.end();
  }
}

const reportedLost = (output: string) => output.includes('PostgreSQL ended an idle connection');

for (const kind of databaseKinds.filter((name) => name === 'postgres')) {
  describe('the built server when PostgreSQL ends its idle connections', () => {
    let server: RealServer;
    before(async () => {
      server = await startRealServer(kind);
    });
    after(async () => {
      await server?.stop();
    });

    test('the server keeps running; the next requests are answered on new connections', async () => {
      const api = server.api(server.firstKey);
      // Requests at once, so the pool holds several connections, idle once they are answered.
      const made = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          expect(api.post('/customers', { name: `Customer ${i}`, phone: `+23480312345${60 + i}` }), 201),
        ),
      );
      const database = new URL(server.env.DATABASE_URL as string).pathname.slice(1);
      assert.ok((await endConnections(database)) >= 2, 'PostgreSQL ended the server’s connections');
      // The pool reports the connections it lost as their sockets close; the requests below come after that.
      const deadline = Date.now() + 10_000;
      while (!reportedLost(server.output())) {
        assert.ok(Date.now() < deadline, `no lost connection reported within 10 s:\n${server.output()}`);
        await sleep(100);
      }
      await sleep(200);

      const health = await fetch(`${server.baseUrl}/health`, { signal: AbortSignal.timeout(10_000) });
      assert.equal(health.status, 200, `/health after the connections ended:\n${server.output()}`);
      for (const customer of made)
        assert.equal((await expect(api.get(`/customers/${customer.id}`), 200)).id, customer.id);
      const plan = await expect(
        api.post('/tracks', { customerId: made[0].id, title: 'Deep freezer', amount: 30_000 }),
        201,
      );
      const payment = await expect(api.post('/payments', { trackId: plan.id, amount: 10_000 }), 201);
      assert.equal(payment.receipt.number, 'R-000001');
      assert.equal((await expect(api.get(`/tracks/${plan.id}`), 200)).balance, 20_000);
    });
  });
}
