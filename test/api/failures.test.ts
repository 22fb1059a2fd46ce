import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildTestApp } from '../helpers/app.js';
import { newCustomer, newWorkspace } from '../helpers/factories.js';

describe('unexpected failures', () => {
  test('a failing database statement is 500 internal_error, leaks nothing and rolls the change back', async () => {
    const t = await buildTestApp();
    try {
      const { api } = await newWorkspace(t);
      const customer = await newCustomer(api);
      // The plan row is written first, then its ledger entry: break the second write.
      await sql`drop table ledger_entries`.execute(t.ctx.db);

      const res = await api.post('/tracks', { customerId: customer.id, title: 'Plan', amount: 100 });
      assert.equal(res.status, 500);
      assert.equal(res.body.success, false);
      assert.equal(res.body.error.code, 'internal_error');
      assert.equal(typeof res.body.request_id, 'string');
      assert.equal(res.headers['x-request-id'], res.body.request_id);
      const text = JSON.stringify(res.body);
      for (const leak of ['ledger_entries', 'insert into', 'SQLITE', 'relation', '.ts:', '    at ']) {
        assert.ok(!text.includes(leak), `the response leaks ${leak}: ${text}`);
      }

      const plans = await api.get('/tracks');
      assert.equal(plans.status, 200);
      assert.deepEqual(
        plans.body.data.items,
        [],
        'the plan row was rolled back with the failed ledger entry',
      );
    } finally {
      await t.close();
    }
  });

  test('GET /health is 503 in the envelope when the database does not answer', async () => {
    const t = await buildTestApp();
    try {
      await t.handle.close();
      const res = await t.app.inject({ method: 'GET', url: '/health' });
      assert.equal(res.statusCode, 503);
      const body = res.json();
      assert.equal(body.success, false);
      assert.equal(body.error.code, 'internal_error');
    } finally {
      await t.app.close();
      await t.database.drop();
    }
  });
});
