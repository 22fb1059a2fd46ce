/**
 * A promise to pay on the built server in real time, on each database: while open it holds back the automatic
 * debit; the test clock's advance that passes its date breaks it at that instant, the debit is charged and the
 * one reminder for the broken promise is queued, all in the advance's own work.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { killChildren } from '../../bench/processes.js';
import {
  type Api,
  addMonths,
  approveOnConsentPage,
  clockOf,
  databaseKinds,
  dateIn,
  expect,
  localInstant,
  type RealServer,
  startRealServer,
} from './server.js';

process.once('exit', killChildren);

async function items(api: Api, path: string): Promise<any[]> {
  const page = await expect(api.get(path), 200);
  return [...page.items].reverse();
}

async function advance(api: Api, body: Record<string, unknown>) {
  const moved = await expect(api.post('/account/test-clock/advance', body), 200);
  assert.equal(moved.status, 'ready');
  return moved as { now: string; ran: Record<string, number> };
}

describe('a promise to pay on the built server in real time', { concurrency: true }, () => {
  for (const kind of databaseKinds) {
    describe(`on ${kind}`, () => {
      let server: RealServer;
      before(async () => {
        server = await startRealServer(kind);
      });
      after(async () => {
        await server?.stop();
      });

      test('holds the debit while open; broken by the advance past its date: the debit charges, one reminder', async () => {
        const api = await server.newWorkspace('Promises', 'Africa/Lagos');
        const { timezone, now } = await clockOf(api);
        const due = dateIn(now, timezone, 2);
        const promisedBy = dateIn(localInstant(due, timezone, '12:00'), timezone, 1);
        const brokenAt = localInstant(dateIn(localInstant(due, timezone, '12:00'), timezone, 2), timezone);
        const customer = await expect(
          api.post('/customers', { name: 'Chidi Eze', phone: '+2348031234567', email: 'chidi@example.com' }),
          201,
        );
        const plan = await expect(
          api.post('/tracks', { customerId: customer.id, title: 'Deep freezer', amount: 30_000 }),
          201,
        );
        const schedule = await expect(
          api.post('/collection-schedules', {
            target_type: 'payment_plan',
            target_id: plan.id,
            frequency: 'monthly',
            fixed_amount: 10_000,
            start_date: `${due}T09:00:00Z`,
            end_date: `${addMonths(due, 2)}T09:00:00Z`,
            collection_method: 'auto_debit',
          }),
          201,
        );
        const mandate = await expect(
          api.post('/payment-mandates', {
            payer_type: 'customer',
            provider: 'gatewayA',
            schedule_id: schedule.id,
          }),
          201,
        );
        await approveOnConsentPage(mandate.consent_url);
        const [first] = (await items(api, `/collection-schedules/${schedule.id}/obligations?limit=100`)).sort(
          (a, b) => (a.due_date < b.due_date ? -1 : 1),
        );
        const promise = await expect(
          api.post('/promises', {
            trackId: plan.id,
            obligationId: first.id,
            amount: 10_000,
            date: promisedBy,
          }),
          201,
        );
        assert.equal(promise.status, 'open');

        await advance(api, { to: localInstant(promisedBy, timezone, '23:59') });
        let attempts = await items(api, `/collection-attempts?schedule_id=${schedule.id}&limit=100`);
        assert.deepEqual(
          attempts.map((a) => [a.status, a.blocked_reason]),
          [['blocked', 'promise_open']],
        );
        assert.equal((await expect(api.get(`/tracks/${plan.id}`), 200)).balance, 30_000);

        const moved = await advance(api, { to: brokenAt });
        assert.equal(moved.ran['promises.fall_due'], 1, JSON.stringify(moved.ran));
        const broken = await expect(api.get(`/promises/${promise.id}`), 200);
        assert.deepEqual([broken.status, broken.resolvedAt], ['broken', brokenAt]);
        attempts = await items(api, `/collection-attempts?schedule_id=${schedule.id}&limit=100`);
        assert.deepEqual(
          attempts.map((a) => [a.status, a.attempted_at]),
          [['succeeded', brokenAt]],
          'the held attempt is charged in the advance that broke the promise',
        );
        assert.equal((await expect(api.get(`/tracks/${plan.id}`), 200)).balance, 20_000);
        const reminders = await items(api, '/reminders?source=schedule&limit=100');
        assert.equal(reminders.length, 1, JSON.stringify(reminders));
        assert.match(reminders[0].message, /your promise to pay \$100\.00 by .+ was not kept/);
        // The debit paid what the promise covered in the same advance: its reminder is not sent.
        assert.deepEqual([reminders[0].status, reminders[0].skipReason], ['skipped', 'obligation_paid']);
      });
    });
  }
});
