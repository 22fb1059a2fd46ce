import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { ManualClock } from '../../src/lib/clock.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newTrack, newWorkspace } from '../helpers/factories.js';

const NOW = '2028-01-20T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)), env: { RATE_LIMIT_PER_MINUTE: '100000' } });
});
after(() => t.close());

/** The rule, as plain arithmetic: each payment fills the debts in order, each up to what it still owes. */
function modelAllocation(owed: readonly number[], payments: readonly number[]): number[] {
  const paid = owed.map(() => 0);
  for (const payment of payments) {
    let left = payment;
    for (const [i, debt] of owed.entries()) {
      const part = Math.min(debt - (paid[i] ?? 0), left);
      paid[i] = (paid[i] ?? 0) + part;
      left -= part;
    }
  }
  return paid;
}

test('property: payments pay obligations oldest first, never beyond what each owes, as the plain rule does', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.integer({ min: 1, max: 50_000 }), { minLength: 1, maxLength: 5 }),
      fc.array(fc.integer({ min: 1, max: 60_000 }), { minLength: 1, maxLength: 5 }),
      async (owed, payments) => {
        const { api } = await newWorkspace(t);
        const plan = await newTrack(api, { amount: owed.reduce((a, b) => a + b, 0) + 300_000 });
        const scheduleIds: string[] = [];
        // One obligation a day, oldest first, each from its own schedule.
        for (const [i, amount] of owed.entries()) {
          const day = String(10 + i).padStart(2, '0');
          const res = await api.post('/collection-schedules', {
            target_type: 'payment_plan',
            target_id: plan.id,
            frequency: 'one_time',
            fixed_amount: amount,
            start_date: `2028-02-${day}T09:00:00Z`,
          });
          assert.equal(res.status, 201, JSON.stringify(res.body));
          scheduleIds.push(res.body.data.id);
        }
        let outstanding = owed.reduce((a, b) => a + b, 0);
        for (const amount of payments) {
          const res = await api.post('/payments', { trackId: plan.id, amount });
          assert.equal(res.status, 201, JSON.stringify(res.body));
          const allocated = res.body.data.allocations.reduce(
            (sum: number, a: { amount: number }) => sum + a.amount,
            0,
          );
          assert.equal(allocated, Math.min(amount, outstanding));
          assert.equal(res.body.data.unallocatedAmount, amount - allocated);
          outstanding -= allocated;
        }
        const expected = modelAllocation(owed, payments);
        for (const [i, scheduleId] of scheduleIds.entries()) {
          const list = await api.get(`/collection-schedules/${scheduleId}/obligations`);
          const [obligation] = list.body.data.items;
          assert.ok(obligation.amount_paid <= obligation.amount);
          assert.equal(
            obligation.amount_paid,
            expected[i],
            `obligation ${i} of ${JSON.stringify({ owed, payments })}`,
          );
          const status =
            obligation.amount_paid === obligation.amount
              ? 'paid'
              : obligation.amount_paid > 0
                ? 'partially_paid'
                : 'pending';
          assert.equal(obligation.status, status);
        }
      },
    ),
    { numRuns: 25 },
  );
});
