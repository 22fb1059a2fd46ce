/**
 * Report figures past 2^53. Building 9,008 plans of 10^12 over HTTP takes minutes, so the rows are written
 * through the repositories (ledger entries, obligations, payments) in one transaction each, and the reports are
 * read over HTTP as usual.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addDays } from '../../src/lib/calendar.js';
import { ManualClock } from '../../src/lib/clock.js';
import { newId } from '../../src/lib/ids.js';
import { appendEntries } from '../../src/modules/ledger/ledger.service.js';
import * as payments from '../../src/modules/payments/payments.repository.js';
import { rollupSweep } from '../../src/modules/reports/rollups.sweep.js';
import * as obligations from '../../src/modules/schedules/obligations.repository.js';
import { obligationRow } from '../../src/modules/schedules/schedules.generation.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newTrack, newWorkspace } from '../helpers/factories.js';

const NOW = '2028-01-20T12:00:00.000Z';
/** 2^53 - 1: the largest integer a JSON number carries exactly to every client. */
const LARGEST = 9_007_199_254_740_991;
const TRILLION = 1_000_000_000_000;

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

/** Amounts of `10^12` and one remainder that add up to `total` (taking away what is there already). */
function amountsFor(total: number, already: number): number[] {
  const rest = total - already;
  const whole = Math.floor(rest / TRILLION);
  return [...Array.from({ length: whole }, () => TRILLION), rest - whole * TRILLION].filter((a) => a > 0);
}

async function tooLarge(api: Client, path: string) {
  const res = await api.get(path);
  assert.equal(res.status, 422, JSON.stringify(res.body));
  assert.equal(res.body.success, false);
  assert.equal(res.body.error.code, 'total_too_large');
  assert.match(res.body.error.message, /9007199254740991/);
  assert.ok(res.body.request_id);
}

/** Folds the rows into the report rollup, so that the figures come from both its parts. */
const fold = (workspaceId: string) =>
  rollupSweep.run(t.ctx, { mode: 'test', workspaceId, now: t.clock.now() });

describe('report figures are exact up to 2^53 - 1 and a clear error past it, never a 500', () => {
  test('summary: billed and outstanding of 9,008 charges of up to 10^12', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 1_000 });
    const tenant = { workspaceId, mode: 'test' as const, clock: t.clock };
    const charge = (amount: number) => ({
      type: 'plan.charged' as const,
      trackId: plan.id,
      customerId: plan.customerId,
      amount,
      balanceAfter: null,
      currency: 'NGN',
    });
    await t.ctx.db
      .transaction()
      .execute((trx) => appendEntries(trx, tenant, amountsFor(LARGEST, 1_000).map(charge)));

    for (const folded of [false, true]) {
      if (folded) await fold(workspaceId);
      const res = await api.get('/reports/summary');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const ngn = res.body.data.currencies[0];
      assert.equal(ngn.billed, LARGEST);
      assert.equal(ngn.outstanding, LARGEST);
    }

    await t.ctx.db.transaction().execute((trx) => appendEntries(trx, tenant, [charge(1)]));
    await tooLarge(api, '/reports/summary');
    await fold(workspaceId);
    await tooLarge(api, '/reports/summary');

    const queued = await api.post('/reports/export', { report: 'summary', format: 'csv' });
    assert.equal(queued.status, 202, JSON.stringify(queued.body));
    await t.worker.drain();
    const exported = (await api.get(`/reports/exports/${queued.body.data.id}`)).body.data;
    assert.equal(exported.status, 'failed');
    assert.match(exported.error, /9007199254740991/);
  });

  test('overdue: an account and a currency total of 9,008 obligations of up to 10^12', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const made = await api.post('/collection-schedules', {
      target_type: 'generic_collection',
      target_id: null,
      frequency: 'one_time',
      fixed_amount: 1_000,
      start_date: '2028-01-01T00:00:00Z',
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const schedule = await t.ctx.db
      .selectFrom('schedules')
      .selectAll()
      .where('id', '=', made.body.data.id)
      .executeTakeFirstOrThrow();
    const at = t.clock.now();
    const rows = amountsFor(LARGEST, 1_000).map((amount, i) =>
      obligationRow(schedule, i + 1, addDays('2027-12-31', -i), amount, at),
    );
    await t.ctx.db.transaction().execute((trx) => obligations.insertMany(trx, rows));

    for (const folded of [false, true]) {
      if (folded) await fold(workspaceId);
      const res = await api.get('/reports/overdue');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.currencies[0].total, LARGEST);
      assert.equal(res.body.data.accounts.items[0].overdueAmount, LARGEST);
      assert.equal((await api.get('/reports/summary')).body.data.currencies[0].overdue, LARGEST);
    }

    await obligations.insertMany(t.ctx.db, [obligationRow(schedule, 9_999, '2000-01-01', 1, at)]);
    await tooLarge(api, '/reports/overdue');
    await tooLarge(api, '/reports/summary');
  });

  test('collections: the total of 9,008 payments of up to 10^12', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 1_000 });
    const paid = (amount: number) => {
      const at = t.clock.now();
      return {
        id: newId('payment', at),
        workspace_id: workspaceId,
        mode: 'test' as const,
        track_id: plan.id,
        customer_id: plan.customerId,
        amount,
        currency: 'NGN',
        method: 'cash',
        status: 'recorded' as const,
        paid_at: at.toISOString(),
        reference: null,
        reference_key: null,
        source: 'api' as const,
        metadata: '{}',
        created_at: at.toISOString(),
        reversed_at: null,
        reversal_reason: null,
        allocations: '[]',
        unapplied_reason: null,
        split_from: null,
        split_into: null,
        provider: null,
        provider_reference: null,
        refund_status: null,
        refund_provider_reference: null,
        refund_failure_reason: null,
        receipt_number: null,
        receipt_code: null,
        balance_after: null,
      };
    };
    await t.ctx.db.transaction().execute(async (trx) => {
      for (const amount of amountsFor(LARGEST, 0)) await payments.insert(trx, paid(amount));
    });
    const res = await api.get('/reports/collections');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.currencies[0].total, LARGEST);
    assert.equal(res.body.data.currencies[0].count, 9_008);

    await payments.insert(t.ctx.db, paid(1));
    await tooLarge(api, '/reports/collections');
  });
});
