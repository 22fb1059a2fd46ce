import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import { newId } from '../../src/lib/ids.js';
import { appendEntry } from '../../src/modules/ledger/ledger.service.js';
import { rollupSweep } from '../../src/modules/reports/rollups.sweep.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { clockAt } from '../helpers/clock-at.js';
import { newSchedule } from '../helpers/collections.js';
import { newTrack, newWorkspace } from '../helpers/factories.js';

// The reports' figures of the collections workflow: what was written off (here, the discounts of settlement
// quotes paid; write-offs and fees through their ledger entries, written here directly while their APIs are
// built apart), and the overdue amounts covered by open promises and disputes (rows written here directly, for
// the same reason).

const NOW = '2028-06-30T12:00:00.000Z';

type Row = Record<string, any>;

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const at = clockAt(() => t, NOW);
const lagos = () => newWorkspace(t, { timezone: 'Africa/Lagos' });

async function report(api: Client, path: string) {
  const res = await api.get(path);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

const naira = (data: { currencies: Row[] }) => data.currencies.find((c) => c.currency === 'NGN') as Row;

/** A scooter of 60,000 in monthly instalments of 20,000 due 25 May, 25 Jun and 25 Jul: 40,000 overdue now. */
async function scooter(api: Client, title: string) {
  const plan = await at('2028-05-01T12:00:00.000Z', () => newTrack(api, { amount: 60_000, title }));
  const schedule = await at('2028-05-01T12:00:00.000Z', () =>
    newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 20_000,
      start_date: '2028-05-25T09:00:00Z',
      end_date: '2028-07-25T09:00:00Z',
    }),
  );
  const obligations = (
    (await api.get(`/collection-schedules/${schedule.id}/obligations`)).body.data.items as Row[]
  )
    .sort((a, b) => a.due_date.localeCompare(b.due_date))
    .map((o) => o.id as string);
  return { plan, obligations };
}

async function promise(
  workspaceId: string,
  plan: Row,
  amount: number,
  options: { obligationId?: string; createdAt?: string; resolvedAt?: string } = {},
) {
  const createdAt = options.createdAt ?? '2028-06-28T12:00:00.000Z';
  await t.ctx.db
    .insertInto('promises')
    .values({
      id: newId('promise', new Date(createdAt)),
      workspace_id: workspaceId,
      mode: 'test',
      track_id: plan.id,
      obligation_id: options.obligationId ?? null,
      customer_id: plan.customerId,
      amount,
      currency: 'NGN',
      date: '2028-07-03',
      due_at: '2028-07-03T23:00:00.000Z',
      note: null,
      source: 'business',
      status: options.resolvedAt ? 'kept' : 'open',
      created_at: createdAt,
      resolved_at: options.resolvedAt ?? null,
      updated_at: options.resolvedAt ?? createdAt,
    })
    .execute();
}

async function dispute(workspaceId: string, plan: Row, obligationId: string | null) {
  await t.ctx.db
    .insertInto('disputes')
    .values({
      id: newId('dispute', new Date('2028-06-28T12:00:00.000Z')),
      workspace_id: workspaceId,
      mode: 'test',
      track_id: plan.id,
      obligation_id: obligationId,
      payment_id: null,
      customer_id: plan.customerId,
      reason: 'not_received',
      note: null,
      status: 'open',
      resolution: null,
      resolution_note: null,
      created_at: '2028-06-28T12:00:00.000Z',
      resolved_at: null,
      updated_at: '2028-06-28T12:00:00.000Z',
    })
    .execute();
}

describe('overdue report: promised and disputed', () => {
  test('each account shows what open promises and disputes cover of its overdue amount; currencies add them up', async () => {
    const { api, workspaceId } = await lagos();
    const promisedPlan = await scooter(api, 'Promised on the plan');
    await promise(workspaceId, promisedPlan.plan, 25_000);
    const promisedObligation = await scooter(api, 'Promised on May');
    await promise(workspaceId, promisedObligation.plan, 30_000, {
      obligationId: promisedObligation.obligations[0],
    });
    const both = await scooter(api, 'June disputed, plan promised');
    await dispute(workspaceId, both.plan, both.obligations[1] as string);
    await promise(workspaceId, both.plan, 30_000);
    const disputedPlan = await scooter(api, 'Disputed on the plan');
    await dispute(workspaceId, disputedPlan.plan, null);
    const kept = await scooter(api, 'Promise kept yesterday');
    await promise(workspaceId, kept.plan, 10_000, {
      createdAt: '2028-06-27T12:00:00.000Z',
      resolvedAt: '2028-06-29T12:00:00.000Z',
    });
    const plain = await scooter(api, 'Nothing said');

    const byPlan = (data: Row) =>
      Object.fromEntries(
        (data.accounts.items as Row[]).map((a) => [a.planTitle, [a.overdueAmount, a.promised, a.disputed]]),
      );
    const now = await report(api, '/reports/overdue?limit=100');
    assert.deepEqual(byPlan(now), {
      'Promised on the plan': [40_000, 25_000, 0],
      // An obligation promise covers at most what that obligation has overdue.
      'Promised on May': [40_000, 20_000, 0],
      // A dispute comes first: the plan promise covers what is overdue and not disputed.
      'June disputed, plan promised': [40_000, 20_000, 20_000],
      'Disputed on the plan': [40_000, 0, 40_000],
      'Promise kept yesterday': [40_000, 0, 0],
      'Nothing said': [40_000, 0, 0],
    });
    const figures = naira(now);
    assert.equal(figures.total, 240_000);
    assert.equal(figures.promised, 65_000);
    assert.equal(figures.disputed, 60_000);

    // Yesterday the kept promise was still open.
    const then = await report(api, '/reports/overdue?limit=100&to=2028-06-28T18:00:00Z');
    assert.deepEqual(byPlan(then)['Promise kept yesterday'], [40_000, 10_000, 0]);
    assert.equal(naira(then).promised, 75_000);
    assert.ok(plain.plan.id);
  });
});

describe('summary: writtenOff, feesCharged, feesWaived', () => {
  test('a settlement discount paid is written off in its period; the plan owes nothing after it', async () => {
    const { api } = await lagos();
    const plan = await at('2028-06-01T12:00:00.000Z', () => newTrack(api, { amount: 45_000, title: 'Bike' }));
    await at('2028-06-01T12:00:00.000Z', () =>
      newSchedule(api, {
        target_type: 'payment_plan',
        target_id: plan.id,
        frequency: 'one_time',
        fixed_amount: 30_000,
        start_date: '2028-08-01T09:00:00Z',
        early_settlement_discount: { type: 'percent', value: 10 },
      }),
    );
    const quote = (await api.get(`/tracks/${plan.id}/settlement-quote`)).body.data;
    assert.equal(quote.discount, 3_000);
    const paid = await api.post('/payments', {
      trackId: plan.id,
      amount: 42_000,
      settlementQuoteId: quote.id,
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));

    const june = naira(await report(api, '/reports/summary?from=2028-06-01T00:00:00Z'));
    assert.deepEqual(
      [june.billed, june.collected, june.outstanding, june.writtenOff, june.feesCharged, june.feesWaived],
      [45_000, 42_000, 0, 3_000, 0, 0],
    );
    const before = naira(await report(api, '/reports/summary?to=2028-06-30T00:00:00Z'));
    assert.deepEqual([before.outstanding, before.writtenOff], [45_000, 0]);
  });

  test('write-offs net of reversals and fees, exact for any period and after the rollup folds them', async () => {
    const { api, workspaceId } = await lagos();
    const plan = await at('2028-01-10T12:00:00.000Z', () =>
      newTrack(api, { amount: 100_000, title: 'Fridge' }),
    );
    const tenant = { workspaceId, mode: 'test' as const, clock: t.clock };
    const entry = (type: Parameters<typeof appendEntry>[2]['type'], amount: number, occurredAt: string) =>
      appendEntry(t.ctx.db, tenant, {
        type,
        trackId: plan.id,
        customerId: plan.customerId,
        amount,
        balanceAfter: null,
        currency: 'NGN',
        occurredAt,
        refs: {},
      });
    await entry('fee.charged', 2_500, '2028-02-05T10:00:00.000Z');
    await entry('fee.charged', 2_500, '2028-03-05T10:00:00.000Z');
    await entry('fee.waived', -2_500, '2028-03-06T10:00:00.000Z');
    await entry('plan.written_off', -40_000, '2028-04-01T10:00:00.000Z');
    await entry('plan.write_off_reversed', 40_000, '2028-04-02T10:00:00.000Z');
    await entry('plan.written_off', -30_000, '2028-05-01T10:00:00.000Z');

    const periods: [string, number[]][] = [
      // [writtenOff, feesCharged, feesWaived, outstanding]
      ['', [30_000, 5_000, 2_500, 72_500]],
      ['from=2028-03-01T00:00:00Z&to=2028-04-01T12:00:00Z', [40_000, 2_500, 2_500, 62_500]],
      ['from=2028-04-01T12:00:00Z&to=2028-05-01T00:00:00Z', [-40_000, 0, 0, 102_500]],
      ['from=2028-04-01T00:00:00Z', [30_000, 0, 0, 72_500]],
      ['to=2028-02-05T10:00:00Z', [0, 0, 0, 100_000]],
    ];
    const read = async () => {
      const out: [string, number[]][] = [];
      for (const [query] of periods) {
        const c = naira(await report(api, `/reports/summary${query ? `?${query}` : ''}`));
        out.push([query, [c.writtenOff, c.feesCharged, c.feesWaived, c.outstanding]]);
      }
      return out;
    };
    assert.deepEqual(await read(), periods);
    const folded = await rollupSweep.run(t.ctx, { mode: 'test', now: t.clock.now(), workspaceId });
    assert.ok(folded > 0, 'the sweep folded rows in');
    assert.deepEqual(await read(), periods);
  });
});

describe('overdue report: written-off obligations', () => {
  test('a written-off obligation is overdue no more, but was before it was written off', async () => {
    const { api } = await lagos();
    const { obligations } = await scooter(api, 'Given up on May');
    // As a write-off leaves it (the write-off API is built apart): closed, at 29 Jun.
    await t.ctx.db
      .updateTable('obligations')
      .set({ status: 'written_off', updated_at: '2028-06-29T12:00:00.000Z' })
      .where('id', '=', obligations[0] as string)
      .execute();
    const now = await report(api, '/reports/overdue');
    assert.equal(naira(now).total, 20_000);
    assert.equal(now.accounts.items[0].overdueAmount, 20_000);
    const then = await report(api, '/reports/overdue?to=2028-06-28T12:00:00Z');
    assert.equal(naira(then).total, 40_000);
    assert.equal(then.accounts.items[0].overdueAmount, 40_000);
  });
});
