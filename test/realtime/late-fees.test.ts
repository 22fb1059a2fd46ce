/**
 * Late fees on the built server in real time, on each database: the test clock's advance of 70 days charges each
 * period of an overdue instalment exactly once, with its own date, and a second advance charges only the periods
 * it reaches; a waiver takes one back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { killChildren } from '../../bench/processes.js';
import {
  type Api,
  clockOf,
  databaseKinds,
  dateIn,
  expect,
  type RealServer,
  startRealServer,
} from './server.js';

process.once('exit', killChildren);

async function advance(api: Api, body: Record<string, unknown>) {
  const moved = await expect(api.post('/account/test-clock/advance', body), 200);
  assert.equal(moved.status, 'ready');
  return moved as { now: string; ran: Record<string, number> };
}

async function feesOf(api: Api, trackId: string) {
  const page = await expect(api.get(`/obligations?track_id=${trackId}&limit=100`), 200);
  return (page.items as any[]).filter((o) => o.kind === 'fee');
}

describe('late fees on the built server in real time', { concurrency: true }, () => {
  for (const kind of databaseKinds) {
    describe(`on ${kind}`, () => {
      let server: RealServer;
      before(async () => {
        server = await startRealServer(kind);
      });
      after(async () => {
        await server?.stop();
      });

      test('an advance charges every period once with its own date; a waiver takes one back', async () => {
        const api = await server.newWorkspace('Late fees', 'Africa/Lagos');
        const { timezone, now } = await clockOf(api);
        const due = dateIn(now, timezone, 1);
        const customer = await expect(
          api.post('/customers', { name: 'Ngozi Okafor', phone: '+2348031234568' }),
          201,
        );
        const plan = await expect(
          api.post('/tracks', { customerId: customer.id, title: 'Generator', amount: 50_000 }),
          201,
        );
        await expect(
          api.post('/collection-schedules', {
            target_type: 'payment_plan',
            target_id: plan.id,
            frequency: 'one_time',
            fixed_amount: 50_000,
            start_date: `${due}T09:00:00Z`,
            late_fee: { type: 'percent', value: 2.5, every_days: 30, grace_days: 2 },
          }),
          201,
        );
        // Overdue from the day after `due`; fees 2 days later and every 30 days: days 3, 33 and 63 after `due`.
        await advance(api, { days: 70 });
        let fees = await feesOf(api, plan.id);
        assert.deepEqual(
          fees.map((f) => [f.due_date, f.amount, f.fee_of !== null]),
          [3, 33, 63].map((days) => [dateIn(`${due}T12:00:00Z`, timezone, days), 1_250, true]),
        );
        assert.equal((await expect(api.get(`/tracks/${plan.id}`), 200)).balance, 50_000 + 3 * 1_250);

        await advance(api, { days: 1 });
        assert.equal((await feesOf(api, plan.id)).length, 3, 'no period is charged twice');
        await advance(api, { days: 30 });
        fees = await feesOf(api, plan.id);
        assert.equal(fees.length, 4);

        const waived = await expect(
          api.post(`/obligations/${fees[0].id}/waive`, { reason: 'goodwill' }),
          200,
        );
        assert.equal(waived.status, 'waived');
        const balance = (await expect(api.get(`/tracks/${plan.id}`), 200)).balance;
        assert.equal(balance, 50_000 + 3 * 1_250);
        const ledger = await expect(api.get(`/tracks/${plan.id}/ledger?limit=100`), 200);
        const moved = (ledger.items as any[]).filter((e) => e.type.startsWith('fee.')).map((e) => e.amount);
        assert.deepEqual(moved.sort(), [-1_250, 1_250, 1_250, 1_250, 1_250].sort());
      });
    });
  }
});
