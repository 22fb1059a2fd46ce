import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Kysely, Migrator, sql } from 'kysely';
import { migrateToLatest } from '../../src/db/migrate.js';
import { freshDatabase } from '../helpers/app.js';
import { migrationsBefore } from '../helpers/migrations.js';

// Migration 0039 moves what the report rollup and the event relay have still to do from marks on the rows into
// queues: a delta for each ledger entry and payment change not folded yet, an outbox row for each event not
// relayed yet. From then on triggers write them in the statement that writes the row.

const at = (minute: number) => `2028-01-20T12:${String(minute).padStart(2, '0')}:00.000Z`;

function payment(id: string, minute: number, status: string, rolledStatus: string, method = 'cash') {
  return {
    id,
    workspace_id: 'ws_1',
    mode: 'test',
    track_id: null,
    customer_id: null,
    amount: 100 + minute,
    currency: 'NGN',
    method,
    status,
    rolled_status: rolledStatus,
    paid_at: at(minute),
    reference: null,
    reference_key: null,
    source: 'api',
    metadata: '{}',
    created_at: at(minute),
    reversed_at: null,
    reversal_reason: null,
    allocations: '[]',
    unapplied_reason: 'unknown_reference',
    split_from: null,
    split_into: null,
  };
}

function entry(id: string, minute: number, rolledUp: number, trackId: string | null) {
  return {
    id,
    workspace_id: 'ws_1',
    mode: 'test',
    type: 'payment.recorded',
    track_id: trackId,
    customer_id: null,
    amount: -(10 + minute),
    balance_after: null,
    currency: 'NGN',
    occurred_at: at(minute),
    refs: '{}',
    created_at: at(minute),
    rolled_up: rolledUp,
  };
}

function obligation(id: string, status: string, amount: number, paid: number, rolledOwed: number) {
  return {
    id,
    workspace_id: 'ws_1',
    mode: 'test',
    schedule_id: `sch_${id}`,
    track_id: 'trk_1',
    sequence: 1,
    due_date: '2028-02-01',
    amount,
    amount_paid: paid,
    currency: 'NGN',
    status,
    overdue_at: at(0),
    paid_at: null,
    allocations: '[]',
    created_at: at(0),
    updated_at: at(0),
    rolled_owed: rolledOwed,
  };
}

/** Rows that name a schedule and a plan this test does not make (on PostgreSQL, with no trigger either). */
async function withoutForeignKeys(
  db: Kysely<any>,
  dialect: string,
  write: (db: Kysely<any>) => Promise<unknown>,
) {
  if (dialect === 'sqlite') {
    await sql`pragma foreign_keys = off`.execute(db);
    await write(db);
    await sql`pragma foreign_keys = on`.execute(db);
    return;
  }
  await db.transaction().execute(async (trx) => {
    await sql`set local session_replication_role = replica`.execute(trx);
    await write(trx);
  });
}

function event(id: string, dispatched: boolean) {
  return {
    id,
    workspace_id: 'ws_1',
    mode: 'test',
    type: 'customer.created',
    data: '{}',
    previous_attributes: null,
    created_at: at(1),
    dispatched_at: dispatched ? at(2) : null,
  };
}

describe('migration 0039', () => {
  test('what was not folded or relayed yet is queued, and triggers queue what comes after', async () => {
    const database = await freshDatabase();
    const handle = database.open();
    try {
      const { dialect } = handle;
      const db = handle.db as Kysely<any>;
      const { error } = await new Migrator({
        db,
        provider: { getMigrations: () => migrationsBefore('0039', dialect) },
        ...(database.schema ? { migrationTableSchema: database.schema } : {}),
      }).migrateToLatest();
      if (error) throw error;
      await db
        .insertInto('workspaces')
        .values({
          id: 'ws_1',
          name: 'Shop',
          default_currency: 'NGN',
          timezone: 'UTC',
          subscription_plan: 'free',
          created_at: at(0),
          updated_at: at(0),
        })
        .execute();
      await db
        .insertInto('payments')
        .values([
          payment('pay_new', 1, 'recorded', ''),
          payment('pay_folded', 2, 'recorded', 'recorded'),
          payment('pay_reversed_since', 3, 'reversed', 'recorded'),
          payment('pay_split_since', 4, 'split', 'recorded'),
          payment('pay_reversed_unfolded', 5, 'reversed', ''),
          payment('pay_restored', 20, 'recorded', 'reversed', 'bank_transfer'),
        ])
        .execute();
      await db
        .insertInto('ledger_entries')
        .values([
          entry('led_new', 1, 0, 'trk_1'),
          entry('led_folded', 2, 1, 'trk_1'),
          entry('led_planless', 16, 0, null),
        ])
        .execute();
      await db
        .insertInto('events')
        .values([event('evt_relayed', true), event('evt_waiting', false)])
        .execute();
      await withoutForeignKeys(db, dialect, (writer) =>
        writer
          .insertInto('obligations')
          .values([
            obligation('obl_open', 'pending', 500, 100, 0),
            obligation('obl_folded', 'partially_paid', 300, 100, 200),
            obligation('obl_paid_since', 'paid', 200, 200, 200),
          ])
          .execute(),
      );

      assert.ok((await migrateToLatest(handle.db, dialect)).includes('0039_marks_off_the_rows'));
      const deltas = async () =>
        (
          await db
            .selectFrom('rollup_deltas')
            .select(['workspace_id', 'mode', 'source', 'slot', 'currency', 'kind', 'amount', 'count'])
            .orderBy('id')
            .execute()
        ).map((row) => ({ ...row, amount: Number(row.amount), count: Number(row.count) }));
      const delta = (source: string, slot: string, kind: string, amount: number, count: number) => ({
        workspace_id: 'ws_1',
        mode: 'test',
        source,
        slot,
        currency: 'NGN',
        kind,
        amount,
        count,
      });
      const sorted = (rows: ReturnType<typeof delta>[]) =>
        [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
      assert.deepEqual(
        sorted(await deltas()),
        sorted([
          delta('ledger', '2028-01-20T12:00', 'payment.recorded', -11, 1),
          delta('ledger', '2028-01-20T12:15', 'payment.recorded~no_plan', -26, 1),
          delta('payments', '2028-01-20T12:00', 'cash', 101, 1),
          delta('payments', '2028-01-20T12:00', 'cash', -103, -1),
          delta('payments', '2028-01-20T12:00', 'cash', -104, -1),
          delta('payments', '2028-01-20T12:15', 'bank_transfer', 120, 1),
          delta('obligations', '2028-02-01', '', 400, 0),
          delta('obligations', '2028-02-01', '', -200, 0),
        ]),
      );
      assert.deepEqual(await db.selectFrom('event_outbox').select('event_id').execute(), [
        { event_id: 'evt_waiting' },
      ]);

      // From now on, the triggers.
      await db.deleteFrom('rollup_deltas').execute();
      await db.deleteFrom('event_outbox').execute();
      const { rolled_status: _payment, ...fresh } = payment('pay_after', 31, 'recorded', '');
      await db.insertInto('payments').values(fresh).execute();
      await db.updateTable('payments').set({ metadata: '{"a":1}' }).where('id', '=', 'pay_after').execute();
      await db
        .updateTable('payments')
        .set({ status: 'reversed', reversed_at: at(40) })
        .where('id', '=', 'pay_after')
        .execute();
      await db
        .updateTable('payments')
        .set({ status: 'recorded' })
        .where('id', '=', 'pay_reversed_unfolded')
        .execute();
      const { rolled_up: _entry, ...later } = entry('led_after', 44, 0, 'trk_1');
      await db.insertInto('ledger_entries').values(later).execute();
      const { dispatched_at: _event, ...next } = event('evt_after', false);
      await db.insertInto('events').values(next).execute();
      await db.updateTable('obligations').set({ amount_paid: 150 }).where('id', '=', 'obl_folded').execute();
      await db
        .updateTable('obligations')
        .set({ updated_at: at(50) })
        .where('id', '=', 'obl_folded')
        .execute();
      await db
        .updateTable('obligations')
        .set({ due_date: '2028-03-01' })
        .where('id', '=', 'obl_folded')
        .execute();
      assert.deepEqual(await deltas(), [
        delta('payments', '2028-01-20T12:30', 'cash', 131, 1),
        delta('payments', '2028-01-20T12:30', 'cash', -131, -1),
        delta('payments', '2028-01-20T12:00', 'cash', 105, 1),
        delta('ledger', '2028-01-20T12:30', 'payment.recorded', -54, 1),
        delta('obligations', '2028-02-01', '', -50, 0),
        delta('obligations', '2028-02-01', '', -150, 0),
        delta('obligations', '2028-03-01', '', 150, 0),
      ]);
      assert.deepEqual(await db.selectFrom('event_outbox').select('event_id').execute(), [
        { event_id: 'evt_after' },
      ]);
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});
