/**
 * Time-driven work on the built server in real time, on each database: what an advance of the test clock
 * promises is there in its own answer and the state right after it, with nothing left for the worker's next
 * minute, each record handled at its own instant.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { killChildren } from '../../bench/processes.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import {
  type Api,
  addMonths,
  approveOnConsentPage,
  clockOf,
  databaseKinds,
  dateIn,
  expect,
  later,
  localInstant,
  type RealServer,
  startRealServer,
} from './server.js';

process.once('exit', killChildren);

/** A customer, a plan of three instalments of `fixedAmount` and its monthly schedule, the first due on `firstDue`. */
async function monthlyPlan(api: Api, fixedAmount: number, firstDue: string, method: string) {
  const customer = await expect(
    api.post('/customers', { name: 'Chidi Eze', phone: '+2348031234567', email: 'chidi@example.com' }),
    201,
  );
  const plan = await expect(
    api.post('/tracks', { customerId: customer.id, title: 'Deep freezer', amount: 3 * fixedAmount }),
    201,
  );
  const schedule = await expect(
    api.post('/collection-schedules', {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: fixedAmount,
      start_date: `${firstDue}T09:00:00Z`,
      end_date: `${addMonths(firstDue, 2)}T09:00:00Z`,
      collection_method: method,
    }),
    201,
  );
  return { customer, plan, schedule };
}

/** An active mandate on the schedule, approved by its payer on the consent page over HTTP. */
async function approvedMandate(api: Api, scheduleId: string) {
  const mandate = await expect(
    api.post('/payment-mandates', { payer_type: 'customer', provider: 'gatewayA', schedule_id: scheduleId }),
    201,
  );
  await approveOnConsentPage(mandate.consent_url);
  const active = await expect(api.get(`/payment-mandates/${mandate.id}`), 200);
  assert.equal(active.status, 'active');
}

async function items(api: Api, path: string): Promise<any[]> {
  const page = await expect(api.get(path), 200);
  return [...page.items].reverse();
}

const attemptsOf = (api: Api, scheduleId: string) =>
  items(api, `/collection-attempts?schedule_id=${scheduleId}&limit=100`);
const obligationsOf = async (api: Api, scheduleId: string) =>
  (await items(api, `/collection-schedules/${scheduleId}/obligations?limit=100`)).sort((a, b) =>
    a.due_date < b.due_date ? -1 : 1,
  );

async function advance(api: Api, body: Record<string, unknown>) {
  const moved = await expect(api.post('/account/test-clock/advance', body), 200);
  assert.equal(moved.status, 'ready');
  return moved as { now: string; ran: Record<string, number> };
}

// Each database's server runs beside the other's: the tests wait on real time, not on the processor.
describe('the built server in real time, on each database at once', { concurrency: true }, () => {
  for (const kind of databaseKinds) {
    describe(`the built server on ${kind}, in real time`, () => {
      let server: RealServer;
      before(async () => {
        server = await startRealServer(kind);
      });
      after(async () => {
        await server?.stop();
      });

      test('an auto-debit is collected in the advance that passes its due date: succeeded in its answer', async () => {
        // The workspace and key of the first start, as a new user gets them.
        const api = server.api(server.firstKey);
        const { timezone, now } = await clockOf(api);
        const due = dateIn(now, timezone, 3);
        const { plan, schedule } = await monthlyPlan(api, 10_000, due, 'auto_debit');
        await approvedMandate(api, schedule.id);

        const moved = await advance(api, { days: 4 });
        assert.equal(moved.ran['attempts.create'], 1, JSON.stringify(moved.ran));
        assert.equal(moved.ran['attempts.run'], 1, JSON.stringify(moved.ran));
        const [attempt, ...more] = await attemptsOf(api, schedule.id);
        assert.deepEqual(more, []);
        assert.equal(attempt.status, 'succeeded', JSON.stringify(attempt));
        assert.equal(
          attempt.attempted_at,
          localInstant(due, timezone),
          'charged at the start of its due date',
        );
        assert.equal(attempt.created_at, attempt.attempted_at);
        assert.equal((await expect(api.get(`/tracks/${plan.id}`), 200)).balance, 20_000);
        const [first] = await obligationsOf(api, schedule.id);
        assert.equal(first.status, 'paid');
      });

      test('an automatic reminder: the stage 3 days before the due date is made at midnight and sent at 08:00', async () => {
        const api = await server.newWorkspace('Reminders', 'Africa/Lagos');
        const { timezone, now } = await clockOf(api);
        const due = dateIn(now, timezone, 6);
        const stageDay = dateIn(localInstant(due, timezone, '12:00'), timezone, -3);
        const { schedule } = await monthlyPlan(api, 10_000, due, 'reminder_only');
        const [first] = await obligationsOf(api, schedule.id);
        const ofFirst = async () =>
          (await items(api, '/reminders?limit=100')).filter((r) => r.obligationId === first.id);

        // 07:00 local: the stage's day has begun, in quiet hours.
        await advance(api, { to: localInstant(stageDay, timezone, '07:00') });
        const eight = localInstant(stageDay, timezone, '08:00');
        assert.deepEqual(
          (await ofFirst()).map((r) => [r.stage, r.status, r.createdAt, r.sendAt]),
          [['3_days_before', 'queued', localInstant(stageDay, timezone), eight]],
          'made at the start of its day, held until quiet hours end',
        );

        const moved = await advance(api, { to: localInstant(stageDay, timezone, '08:30') });
        assert.equal(moved.ran['reminders.send'], 1, JSON.stringify(moved.ran));
        assert.deepEqual(
          (await ofFirst()).map((r) => [r.stage, r.status, r.sentAt]),
          [['3_days_before', 'sent', eight]],
        );
      });

      test('a retry ladder: a failing debit is tried 1, 3 and 7 days after its first failure, each at its time', async () => {
        const api = await server.newWorkspace('Retries', 'Africa/Lagos');
        const { timezone, now } = await clockOf(api);
        const due = dateIn(now, timezone, 2);
        // Amounts ending in 13: the test provider answers insufficient_funds, a failure worth retrying.
        const { schedule } = await monthlyPlan(api, 10_013, due, 'auto_debit');
        await approvedMandate(api, schedule.id);

        await advance(api, {
          to: localInstant(dateIn(localInstant(due, timezone, '12:00'), timezone, 8), timezone),
        });
        const first = localInstant(due, timezone);
        const attempts = await attemptsOf(api, schedule.id);
        assert.deepEqual(
          attempts.map((a) => [
            a.attempt_number,
            a.status,
            a.failure_code,
            a.attempted_at,
            a.no_retry_reason,
          ]),
          [
            [1, 'failed', 'insufficient_funds', first, null],
            [2, 'failed', 'insufficient_funds', later(first, 1), null],
            [3, 'failed', 'insufficient_funds', later(first, 3), null],
            [4, 'failed', 'insufficient_funds', later(first, 7), 'retries_exhausted'],
          ],
        );
      });

      describe('a 40-day jump over monthly instalments', () => {
        let receiver: Receiver;
        before(async () => {
          receiver = await startReceiver();
        });
        after(() => receiver.close());

        test('charges each on its due date; none is ever overdue', async () => {
          const api = await server.newWorkspace('Instalments', 'Africa/Lagos');
          await expect(
            api.post('/webhooks', {
              url: receiver.url,
              eventTypes: ['attempt.succeeded', 'obligation.overdue'],
            }),
            201,
          );
          const { timezone, now } = await clockOf(api);
          const firstDue = dateIn(now, timezone, 3);
          const secondDue = addMonths(firstDue, 1);
          const { plan, schedule } = await monthlyPlan(api, 10_000, firstDue, 'auto_debit');
          await approvedMandate(api, schedule.id);

          await advance(api, { days: 40 });
          assert.deepEqual(
            (await attemptsOf(api, schedule.id)).map((a) => [a.status, a.attempted_at]),
            [
              ['succeeded', localInstant(firstDue, timezone)],
              ['succeeded', localInstant(secondDue, timezone)],
            ],
          );
          assert.deepEqual(
            (await obligationsOf(api, schedule.id)).map((o) => [o.due_date, o.status, o.paid_at]),
            [
              [firstDue, 'paid', localInstant(firstDue, timezone)],
              [secondDue, 'paid', localInstant(secondDue, timezone)],
              [addMonths(firstDue, 2), 'pending', null],
            ],
          );
          assert.equal((await expect(api.get(`/tracks/${plan.id}`), 200)).balance, 10_000);

          // What an integrator hears: both collections, and no obligation.overdue among the events on the way.
          const deadline = Date.now() + 60_000;
          const heard = () => receiver.requests.map((r) => JSON.parse(r.body).type as string);
          while (heard().filter((type) => type === 'attempt.succeeded').length < 2 && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          assert.deepEqual(heard().sort(), ['attempt.succeeded', 'attempt.succeeded'], server.output());
        });
      });
    });
  }
});
