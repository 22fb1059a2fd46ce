import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runSweepsNow } from '../../src/jobs/sweeps.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newTrack, newWorkspace } from '../helpers/factories.js';

const NOW = '2028-01-20T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

async function obligationDates(api: Client, scheduleId: string): Promise<string[]> {
  const res = await api.get(`/collection-schedules/${scheduleId}/obligations?limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.items.map((o: { due_date: string }) => o.due_date).reverse();
}

/** A schedule refused with 422 naming `field`; nothing is kept. */
async function refused(api: Client, body: Record<string, unknown>, field: string) {
  const res = await api.post('/collection-schedules', body);
  assert.equal(res.status, 422, JSON.stringify(res.body));
  assert.equal(res.body.error.code, 'validation_error');
  assert.match(res.body.error.details.fields[field], /9999-12-31/, JSON.stringify(res.body));
  assert.equal((await api.get('/collection-schedules')).body.data.items.length, 0);
}

const generic = { target_type: 'generic_collection', target_id: null, fixed_amount: 1_000 };

describe('no generated date passes 9999-12-31', () => {
  test('a one_time schedule due on 9999-12-31 is made, and falls overdue at the last instant kept', async () => {
    const { api } = await newWorkspace(t, { timezone: 'America/New_York' });
    const res = await api.post('/collection-schedules', {
      ...generic,
      frequency: 'one_time',
      start_date: '9999-12-31T12:00:00Z',
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(await obligationDates(api, res.body.data.id), ['9999-12-31']);
    const row = await t.ctx.db
      .selectFrom('obligations')
      .select(['overdue_at', 'collect_at'])
      .where('schedule_id', '=', res.body.data.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.overdue_at, '9999-12-31T23:59:59.999Z');
  });

  test('a bounded schedule runs up to 9999-12-31', async () => {
    const { api } = await newWorkspace(t);
    const res = await api.post('/collection-schedules', {
      ...generic,
      frequency: 'daily',
      start_date: '9999-12-20T00:00:00Z',
      end_date: '9999-12-31T23:59:59.999Z',
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const dates = await obligationDates(api, res.body.data.id);
    assert.equal(dates.length, 12);
    assert.equal(dates.at(-1), '9999-12-31');
  });

  test('an open-ended schedule whose first 12 would pass it is refused, naming start_date', async () => {
    const { api } = await newWorkspace(t);
    await refused(api, { ...generic, frequency: 'daily', start_date: '9999-12-25T00:00:00Z' }, 'start_date');
    await refused(api, { ...generic, frequency: 'weekly', start_date: '9999-11-01T00:00:00Z' }, 'start_date');
    await refused(
      api,
      { ...generic, frequency: 'monthly', interval: 1000, start_date: '9100-01-01T00:00:00Z' },
      'start_date',
    );
  });

  test('an installment_sequence whose last instalment would pass it is refused, naming start_date', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 120_000, installments: 12 });
    await refused(
      api,
      {
        target_type: 'payment_plan',
        target_id: plan.id,
        frequency: 'installment_sequence',
        fixed_amount: 10_000,
        start_date: '9999-06-01T00:00:00Z',
      },
      'start_date',
    );
  });

  test('a start_date or end_date whose date in the workspace zone is past it is refused', async () => {
    const { api } = await newWorkspace(t, { timezone: 'Pacific/Kiritimati' });
    await refused(
      api,
      { ...generic, frequency: 'one_time', start_date: '9999-12-31T12:00:00Z' },
      'start_date',
    );
    await refused(
      api,
      {
        ...generic,
        frequency: 'daily',
        start_date: '9999-12-30T00:00:00Z',
        end_date: '9999-12-31T12:00:00Z',
      },
      'end_date',
    );
    await refused(
      api,
      {
        ...generic,
        frequency: 'flexible',
        start_date: '9999-12-01T00:00:00Z',
        end_date: '9999-12-31T20:00:00Z',
      },
      'end_date',
    );
  });

  test('an accepted open-ended schedule stops at 9999-12-31 when its top-ups reach it', async () => {
    const { api, workspaceId } = await newWorkspace(t);
    const res = await api.post('/collection-schedules', {
      ...generic,
      frequency: 'daily',
      start_date: '9999-12-01T00:00:00Z',
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const id = res.body.data.id;
    assert.equal((await obligationDates(api, id)).length, 12);

    const ran = await runSweepsNow(t.ctx, {
      mode: 'test',
      workspaceId,
      now: new Date('9999-12-25T00:00:00Z'),
    });
    assert.equal(ran['schedules.top_up'], 19);
    const dates = await obligationDates(api, id);
    assert.equal(dates.length, 31);
    assert.equal(dates.at(-1), '9999-12-31');
    const row = await t.ctx.db
      .selectFrom('schedules')
      .select('top_up_at')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(row.top_up_at, null, 'nothing is left to top up');

    const again = await runSweepsNow(t.ctx, {
      mode: 'test',
      workspaceId,
      now: new Date('9999-12-31T23:00:00Z'),
    });
    assert.equal(again['schedules.top_up'], 0);
    const generated = await api.patch(`/collection-schedules/${id}`, { action: 'generate_obligations' });
    assert.equal(generated.status, 200, JSON.stringify(generated.body));
    assert.deepEqual(generated.body.data.changes.created, []);
  });

  test('reports reach 9999-12-31 and no further: a to whose date is past it is refused, naming to', async () => {
    const { api } = await newWorkspace(t);
    const made = await api.post('/collection-schedules', {
      ...generic,
      frequency: 'one_time',
      start_date: '9999-12-31T00:00:00Z',
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const summary = await api.get('/reports/summary?to=9999-12-20T00:00:00Z');
    assert.equal(summary.status, 200, JSON.stringify(summary.body));
    assert.equal(summary.body.data.currencies[0].expectedNext30Days, 1_000);
    const overdue = await api.get('/reports/overdue?to=9999-12-31T23:59:59.999Z');
    assert.equal(overdue.status, 200, JSON.stringify(overdue.body));

    const east = await newWorkspace(t, { timezone: 'Pacific/Kiritimati' });
    for (const path of ['/reports/summary', '/reports/overdue']) {
      const res = await east.api.get(`${path}?to=9999-12-31T12:00:00Z`);
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.match(res.body.error.details.fields.to, /9999-12-31/);
    }
  });
});
