import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import { migrateToLatest } from '../../src/db/migrate.js';
import { runSweepsNow } from '../../src/jobs/sweeps.js';
import { ManualClock } from '../../src/lib/clock.js';
import { setProvider } from '../../src/modules/providers/providers.service.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, freshDatabase, type TestApp } from '../helpers/app.js';
import { threeMonthlyDebits } from '../helpers/collections.js';
import { answer, formTokenOf, openPage, pathOf } from '../helpers/consent.js';
import { newCustomer, newWorkspace } from '../helpers/factories.js';

const NOW = '2028-01-20T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const autoDebit = (api: Client, fixedAmount = 3_000) => threeMonthlyDebits(api, fixedAmount);

async function newMandate(api: Client, scheduleId: string, provider = 'gatewayA') {
  const res = await api.post('/payment-mandates', {
    payer_type: 'customer',
    provider,
    schedule_id: scheduleId,
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

/** Each payer answers from an address of their own: the consent pages limit requests per address. */
let payers = 0;
const payerAddress = () => `198.51.100.${++payers}`;

/** Opens a consent page as a payer would and answers it: what the payer then posts. */
async function openedPage(consentUrl: string) {
  const path = pathOf(consentUrl);
  const address = payerAddress();
  const page = await openPage(t, path, address);
  assert.equal(page.statusCode, 200, page.body);
  return () => answer(t, path, { decision: 'approve', form_token: formTokenOf(page.body) }, {}, address);
}

async function approved(api: Client, scheduleId: string, provider = 'gatewayA') {
  const mandate = await newMandate(api, scheduleId, provider);
  const res = await (await openedPage(mandate.consent_url))();
  assert.equal(res.statusCode, 200, res.body);
  return mandate;
}

const mandateOf = async (api: Client, id: string) => (await api.get(`/payment-mandates/${id}`)).body.data;

async function attemptsOf(api: Client, scheduleId: string) {
  const res = await api.get(`/collection-attempts?schedule_id=${scheduleId}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return [...res.body.data.items].reverse() as Record<string, unknown>[];
}

async function paymentsOf(api: Client, trackId: string) {
  return (await api.get(`/payments?trackId=${trackId}&limit=100`)).body.data.items as Record<
    string,
    unknown
  >[];
}

const advanceTo = (api: Client, to: string) => api.post('/account/test-clock/advance', { to });

async function activeOf(scheduleId: string) {
  return t.ctx.db
    .selectFrom('mandates')
    .select('id')
    .where('schedule_id', '=', scheduleId)
    .where('status', '=', 'active')
    .execute();
}

describe('one active mandate per schedule', () => {
  test('approving a second consent link replaces the first: replaced, with when and by which, its event and ledger entry', async () => {
    const { api } = await newWorkspace(t);
    const { plan, schedule } = await autoDebit(api);
    const first = await approved(api, schedule.id);
    await api.post('/account/test-clock/advance', { hours: 1 });
    const second = await approved(api, schedule.id);

    const old = await mandateOf(api, first.id);
    assert.equal(old.status, 'replaced');
    assert.equal(old.replaced_by, second.id);
    assert.equal(old.replaced_at, '2028-01-20T13:00:00.000Z');
    assert.equal(old.activated_at, NOW, 'its activation stays on record');
    const current = await mandateOf(api, second.id);
    assert.equal(current.status, 'active');
    assert.equal(current.replaced_at, null);
    assert.equal(current.replaced_by, null);
    assert.deepEqual(await activeOf(schedule.id), [{ id: second.id }]);

    const events = (await api.get('/events?type=mandate.replaced')).body.data.items;
    assert.equal(events.length, 1);
    assert.equal(events[0].data.object.id, first.id);
    assert.equal(events[0].data.object.status, 'replaced');
    assert.equal(events[0].data.object.replaced_by, second.id);
    assert.deepEqual(events[0].data.previous_attributes, { status: 'active' });

    const ledger = (await api.get(`/tracks/${plan.id}/ledger?type=mandate.replaced`)).body.data.items;
    assert.equal(ledger.length, 1);
    assert.equal(ledger[0].amount, 0);
    assert.equal(ledger[0].balanceAfter, 9_000);
    assert.deepEqual(ledger[0].refs, { mandateId: first.id, scheduleId: schedule.id, replacedBy: second.id });

    const listed = (await api.get('/payment-mandates?status=replaced')).body.data.items;
    assert.deepEqual(
      listed.map((m: { id: string }) => m.id),
      [first.id],
    );
    // A replaced mandate is over: it cannot be revoked.
    const revoke = await api.post(`/payment-mandates/${first.id}/revoke`, {});
    assert.equal(revoke.status, 409);
    assert.deepEqual(revoke.body.error.details, { status: 'replaced', action: 'revoke' });
  });

  test('mandates without a schedule are not replaced by one another', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const ids = [];
    for (let i = 0; i < 2; i++) {
      const res = await api.post('/payment-mandates', {
        payer_type: 'customer',
        payer_id: customer.id,
        provider: 'gatewayA',
      });
      assert.equal((await (await openedPage(res.body.data.consent_url))()).statusCode, 200);
      ids.push(res.body.data.id);
    }
    for (const id of ids) assert.equal((await mandateOf(api, id)).status, 'active');
    assert.equal((await api.get('/events?type=mandate.replaced')).body.data.items.length, 0);
  });

  test('four approvals at the same moment: exactly one active mandate, the others replaced, no 5xx', async () => {
    const { api } = await newWorkspace(t);
    const { schedule } = await autoDebit(api);
    const mandates = [];
    for (let i = 0; i < 4; i++) mandates.push(await newMandate(api, schedule.id));
    const approvals = [];
    for (const m of mandates) approvals.push(await openedPage(m.consent_url));
    const answers = await Promise.all(approvals.map((approve) => approve()));
    for (const res of answers) assert.equal(res.statusCode, 200, res.body);
    const active = await activeOf(schedule.id);
    assert.equal(active.length, 1);
    const statuses = await Promise.all(mandates.map(async (m) => (await mandateOf(api, m.id)).status));
    assert.deepEqual(statuses.sort(), ['active', 'replaced', 'replaced', 'replaced']);
    for (const m of mandates) {
      const read = await mandateOf(api, m.id);
      if (read.status === 'replaced') assert.ok(read.replaced_by, 'says which mandate replaced it');
    }
    assert.equal((await api.get('/events?type=mandate.replaced')).body.data.items.length, 3);
  });

  test('the database itself refuses a second active mandate for a schedule', async () => {
    const { api } = await newWorkspace(t);
    const { schedule } = await autoDebit(api);
    await approved(api, schedule.id);
    const pending = await newMandate(api, schedule.id);
    await assert.rejects(
      t.ctx.db.updateTable('mandates').set({ status: 'active' }).where('id', '=', pending.id).execute(),
      (error: { code?: string }) => /23505|SQLITE_CONSTRAINT/.test(String(error.code)),
    );
  });
});

describe('a revoke stops every future debit of the schedule until a new approval', () => {
  test('two approved links, the active one revoked: nothing more is collected (the review saw 3,000 collected after the revoke)', async () => {
    const { api } = await newWorkspace(t);
    const { plan, schedule } = await autoDebit(api, 3_000);
    await approved(api, schedule.id);
    const second = await approved(api, schedule.id);
    const revoked = await api.post(`/payment-mandates/${second.id}/revoke`, { reason: 'asked to stop' });
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    assert.deepEqual(await activeOf(schedule.id), []);

    await advanceTo(api, '2028-03-26T00:00:00Z');
    const attempts = await attemptsOf(api, schedule.id);
    assert.deepEqual(
      attempts.map((a) => [a.status, a.blocked_reason]),
      [
        ['blocked', 'no_active_mandate'],
        ['blocked', 'no_active_mandate'],
        ['blocked', 'no_active_mandate'],
      ],
    );
    assert.deepEqual(await paymentsOf(api, plan.id), []);
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 9_000);

    // A new approval: the blocked attempts run on it.
    const third = await approved(api, schedule.id);
    await api.post('/account/test-clock/advance', { hours: 1 });
    const ran = await attemptsOf(api, schedule.id);
    assert.deepEqual(
      ran.map((a) => [a.status, a.mandate_id]),
      [
        ['succeeded', third.id],
        ['succeeded', third.id],
        ['succeeded', third.id],
      ],
    );
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 0);
  });

  test('a retry scheduled before the revoke is never charged on the revoked mandate', async () => {
    const { api } = await newWorkspace(t);
    // Amounts ending in 13 fail as insufficient_funds: the first try fails and a retry is scheduled.
    const { plan, schedule } = await autoDebit(api, 10_013);
    const mandate = await approved(api, schedule.id);
    await advanceTo(api, '2028-01-25T00:00:00Z');
    let attempts = await attemptsOf(api, schedule.id);
    assert.deepEqual(
      attempts.map((a) => a.status),
      ['failed', 'scheduled'],
    );
    await api.post(`/payment-mandates/${mandate.id}/revoke`, {});
    await advanceTo(api, '2028-01-27T00:00:00Z');
    attempts = await attemptsOf(api, schedule.id);
    assert.deepEqual(
      attempts.map((a) => [a.status, a.blocked_reason]),
      [
        ['failed', null],
        ['blocked', 'no_active_mandate'],
      ],
    );
    assert.deepEqual(await paymentsOf(api, plan.id), []);
  });

  test('a replaced mandate is never charged again: the waiting retry runs on the mandate that replaced it', async () => {
    const { api } = await newWorkspace(t);
    const { schedule } = await autoDebit(api, 10_013);
    const first = await approved(api, schedule.id, 'gatewayA');
    await advanceTo(api, '2028-01-25T00:00:00Z');
    const second = await approved(api, schedule.id, 'gatewayB');
    assert.equal((await mandateOf(api, first.id)).status, 'replaced');
    await advanceTo(api, '2028-01-26T00:00:00Z');
    const attempts = await attemptsOf(api, schedule.id);
    assert.deepEqual(
      attempts.slice(0, 2).map((a) => [a.attempt_number, a.mandate_id, a.provider]),
      [
        [1, first.id, 'gatewayA'],
        [2, second.id, 'gatewayB'],
      ],
    );
  });

  test('live mode: after the revoke a consent waiting for its provider approval does not let the schedule debit', async () => {
    const { live, workspaceId } = await newWorkspace(t);
    const { plan, schedule } = await autoDebit(live, 3_000);
    await setProvider(t.ctx.db, t.clock, { workspaceId, mode: 'live', provider: 'gatewayA', approved: true });
    const active = await approved(live, schedule.id, 'gatewayA');
    assert.equal((await mandateOf(live, active.id)).status, 'active');
    // Consented, waiting for gatewayC to approve the workspace.
    const waiting = await approved(live, schedule.id, 'gatewayC');
    assert.equal((await mandateOf(live, waiting.id)).status, 'pending');
    assert.equal(
      (await mandateOf(live, active.id)).status,
      'active',
      'a consent still waiting replaces nothing',
    );
    assert.equal((await live.post(`/payment-mandates/${active.id}/revoke`, {})).status, 200);

    t.clock.set(new Date('2028-01-25T00:00:00Z'));
    try {
      await runSweepsNow(t.ctx, { mode: 'live', workspaceId, now: t.clock.now() });
      const attempts = await attemptsOf(live, schedule.id);
      assert.deepEqual(
        attempts.map((a) => [a.status, a.blocked_reason, a.mandate_id]),
        [['blocked', 'provider_approval_required', null]],
      );
      assert.deepEqual(await paymentsOf(live, plan.id), []);
    } finally {
      t.clock.set(new Date(NOW));
    }
  });
});

describe('migration 0015', () => {
  const MIGRATIONS = new URL('../../src/db/migrations/', import.meta.url);

  /** Every migration before 0015, so a database can hold what the one-active rule now forbids. */
  async function migrationsBefore0015(dialect: string): Promise<Record<string, Migration>> {
    const names = fs
      .readdirSync(MIGRATIONS)
      .filter((file) => /^\d{4}_[a-z0-9_]+\.ts$/.test(file) && file < '0015')
      .sort();
    const entries = await Promise.all(
      names.map(async (file) => {
        const module = await import(new URL(file, MIGRATIONS).href);
        return [file.slice(0, -3), { up: (db: Kysely<any>) => module.up(db, dialect) }] as const;
      }),
    );
    return Object.fromEntries(entries);
  }

  test('a schedule with several active mandates keeps the one activated last; the others become replaced by it', async () => {
    const database = await freshDatabase();
    const handle = database.open();
    try {
      const { db, dialect } = handle;
      const schema = database.schema;
      const migrations = await migrationsBefore0015(dialect);
      const { error } = await new Migrator({
        db,
        provider: { getMigrations: async () => migrations },
        ...(schema ? { migrationTableSchema: schema } : {}),
      }).migrateToLatest();
      if (error) throw error;

      const at = (minute: number) => `2028-01-20T12:${String(minute).padStart(2, '0')}:00.000Z`;
      const tenant = { workspace_id: 'ws_1', mode: 'test' };
      await sql`insert into workspaces (id, name, default_currency, timezone, subscription_plan, created_at, updated_at)
        values ('ws_1', 'Shop', 'NGN', 'UTC', 'free', ${at(0)}, ${at(0)})`.execute(db);
      await sql`insert into customers (id, workspace_id, mode, name, phone, metadata, status, created_at, updated_at)
        values ('cus_1', 'ws_1', 'test', 'Ada', '+2348030000000', '{}', 'active', ${at(0)}, ${at(0)})`.execute(
        db,
      );
      for (const id of ['sch_1', 'sch_2']) {
        await sql`insert into schedules (id, workspace_id, mode, target_type, target_id, frequency, collection_method,
            fixed_amount, currency, timezone, start_date, status, next_sequence, metadata, created_at, updated_at)
          values (${id}, 'ws_1', 'test', 'generic_collection', null, 'monthly', 'auto_debit', 1000, 'NGN', 'UTC',
            '2028-01-25', 'active', 0, '{}', ${at(0)}, ${at(0)})`.execute(db);
      }
      const mandates: [string, string | null, string, string | null][] = [
        ['man_a', 'sch_1', 'active', at(1)],
        ['man_b', 'sch_1', 'active', at(3)],
        ['man_c', 'sch_1', 'active', at(2)],
        ['man_d', 'sch_1', 'revoked', at(4)],
        ['man_e', 'sch_2', 'active', at(5)],
        ['man_f', null, 'active', at(6)],
        ['man_g', null, 'active', at(7)],
      ];
      for (const [id, scheduleId, status, activatedAt] of mandates) {
        await db
          .insertInto('mandates')
          .values({
            id,
            ...tenant,
            payer_type: 'customer',
            payer_id: 'cus_1',
            provider: 'gatewayA',
            schedule_id: scheduleId,
            status,
            consent_token_hash: `hash_${id}`,
            consent_expires_at: at(59),
            consented_at: activatedAt,
            activated_at: activatedAt,
            created_at: at(0),
            updated_at: activatedAt ?? at(0),
          } as never)
          .execute();
      }

      assert.ok((await migrateToLatest(db, dialect)).includes('0015_one_active_mandate'));
      const rows = await db
        .selectFrom('mandates')
        .select(['id', 'status', 'replaced_by', 'replaced_at', 'updated_at'])
        .orderBy('id')
        .execute();
      const instant = (value: unknown) => (value === null ? null : new Date(value as string).toISOString());
      assert.deepEqual(
        rows.map((r) => [r.id, r.status, r.replaced_by, instant(r.replaced_at), instant(r.updated_at)]),
        [
          ['man_a', 'replaced', 'man_b', at(3), at(3)],
          ['man_b', 'active', null, null, at(3)],
          ['man_c', 'replaced', 'man_b', at(3), at(3)],
          ['man_d', 'revoked', null, null, at(4)],
          ['man_e', 'active', null, null, at(5)],
          ['man_f', 'active', null, null, at(6)],
          ['man_g', 'active', null, null, at(7)],
        ],
      );
      await assert.rejects(
        db.updateTable('mandates').set({ status: 'active' }).where('id', '=', 'man_a').execute(),
        (error: { code?: string }) => /23505|SQLITE_CONSTRAINT/.test(String(error.code)),
      );
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});
