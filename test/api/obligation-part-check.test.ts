import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { inTransaction } from '../../src/db/unit-of-work.js';
import { ManualClock } from '../../src/lib/clock.js';
import { applyPayment } from '../../src/money/payments.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newTrack, newWorkspace } from '../helpers/factories.js';

const NOW = '2028-01-20T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

test("a payment's part in an obligation that changed before its commit: on PostgreSQL the payment is undone whole; on SQLite the part was written at once", async () => {
  const { api, workspaceId } = await newWorkspace(t);
  const plan = await newTrack(api, { amount: 100_000 });
  const schedule = await api.post('/collection-schedules', {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'one_time',
    fixed_amount: 10_000,
    start_date: '2028-02-10T09:00:00Z',
  });
  assert.equal(schedule.status, 201, JSON.stringify(schedule.body));
  const obligationOf = () =>
    t.ctx.db
      .selectFrom('obligations')
      .select(['id', 'status', 'amount_paid'])
      .where('schedule_id', '=', schedule.body.data.id)
      .executeTakeFirstOrThrow();
  const obligation = await obligationOf();
  const tenant = { workspaceId, mode: 'test' as const, clock: t.clock };

  // Something marks the obligation paid after the payment read it, inside the payment's own transaction: on
  // PostgreSQL its part is written by the statement sent with the commit, which then finds no open obligation.
  const payAndChange = inTransaction(t.ctx, null, async (trx) => {
    const outcome = await applyPayment(
      trx,
      tenant,
      {
        trackId: plan.id,
        amount: 4_000,
        method: 'cash',
        paidAt: NOW,
        reference: null,
        source: 'api',
        metadata: undefined,
      },
      'recorded',
      true,
    );
    assert.ok(outcome.ok);
    await trx.updateTable('obligations').set({ status: 'paid' }).where('id', '=', obligation.id).execute();
    return outcome.payment;
  });

  const payments = () => api.get(`/payments?trackId=${plan.id}`);
  if (t.ctx.dialect === 'postgres') {
    await assert.rejects(payAndChange, /division by zero/);
    assert.deepEqual((await payments()).body.data.items, []);
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 100_000);
    assert.deepEqual(await obligationOf(), { ...obligation });
  } else {
    const payment = await payAndChange;
    assert.deepEqual(payment.allocations, [{ obligationId: obligation.id, amount: 4_000, reversedAt: null }]);
    assert.deepEqual(await obligationOf(), { id: obligation.id, status: 'paid', amount_paid: 4_000 });
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 96_000);
  }
});
