import { type Kysely, type RawBuilder, sql } from 'kysely';
import { columnTypes, type DialectName } from '../dialect.js';

/**
 * Frozen. What the report rollup and the event relay have still to do is kept in queues of their own, written by
 * triggers in the statement that writes the row, instead of marks on the rows themselves.
 *
 * The marks (`ledger_entries.rolled_up`, `payments.rolled_status`, `obligations.rolled_owed`,
 * `events.dispatched_at`) were indexed columns, so setting one wrote the whole row again with an entry in each of
 * its table's indexes (on PostgreSQL no such update is HOT): after 24,500 payments, 49,000 events, 24,500 ledger
 * entries and 24,500 payments had each been written twice, and the indexes that found unmarked rows filled with
 * entries of rows marked since, which every relay and fold read through.
 *
 * - `rollup_deltas`: what a row adds to the report rollup (tenant, source, slot, currency, kind, amount, count),
 *   one row per ledger entry, one per change of a payment in or out of `recorded`, one per change of what an
 *   obligation owes (slot its due date, kind '', count 0). The rollup sweep sums them into `report_rollups` and
 *   deletes them in one transaction; a report reads both.
 * - `event_outbox`: the id of each event not relayed yet. The relay hands the events on and deletes their ids.
 *
 * What was not folded or relayed yet goes into the queues here.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  const id = sql.raw(t.id);
  const money = sql.raw(t.money);
  const pg = dialect === 'postgres';

  await db.schema
    .createTable('rollup_deltas')
    .addColumn('id', pg ? 'bigserial' : 'integer', (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('slot', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount', money, (c) => c.notNull())
    .addColumn('count', money, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('rollup_deltas_slot')
    .on('rollup_deltas')
    .columns(['workspace_id', 'mode', 'source', 'slot'])
    .execute();
  // SQLite: the key is the table (one b-tree to write, not a table and its key's index).
  await db.schema
    .createTable('event_outbox')
    .addColumn('event_id', id, (c) => c.primaryKey())
    .$call((table) => (pg ? table : table.modifyEnd(sql`without rowid`)))
    .execute();

  const slot = (column: string): RawBuilder<string> =>
    pg
      ? sql<string>`to_char(date_trunc('hour', ${sql.raw(column)} at time zone 'UTC') + (floor(extract(minute from ${sql.raw(column)} at time zone 'UTC') / 15) * interval '15 minutes'), 'YYYY-MM-DD"T"HH24:MI')`
      : sql<string>`substr(${sql.raw(column)}, 1, 14) || substr('00153045', (cast(substr(${sql.raw(column)}, 15, 2) as integer) / 15) * 2 + 1, 2)`;
  const ledgerKind = (row: string) =>
    sql.raw(`case when ${row}.track_id is null then ${row}.type || '~no_plan' else ${row}.type end`);
  const columns = sql.raw('(workspace_id, mode, source, slot, currency, kind, amount, count)');
  const ledgerDelta = (row: string) =>
    sql`select ${sql.raw(row)}.workspace_id, ${sql.raw(row)}.mode, 'ledger', ${slot(`${row}.occurred_at`)}, ${sql.raw(row)}.currency, ${ledgerKind(row)}, ${sql.raw(row)}.amount, 1`;
  const paymentDelta = (row: string, sign: 1 | -1) =>
    sql`select ${sql.raw(row)}.workspace_id, ${sql.raw(row)}.mode, 'payments', ${slot(`${row}.paid_at`)}, ${sql.raw(row)}.currency, ${sql.raw(row)}.method, ${sql.raw(String(sign))} * ${sql.raw(row)}.amount, ${sql.raw(String(sign))}`;
  const owed = (row: string) =>
    sql.raw(
      `(case when ${row}.status in ('pending', 'partially_paid', 'overdue') then ${row}.amount - ${row}.amount_paid else 0 end)`,
    );
  const obligationDelta = (row: string, amount: RawBuilder<unknown>) =>
    sql`select ${sql.raw(row)}.workspace_id, ${sql.raw(row)}.mode, 'obligations', ${sql.raw(row)}.due_date, ${sql.raw(row)}.currency, '', ${amount}, 0`;
  const distinct = pg ? 'is distinct from' : 'is not';
  const sameSlot = sql.raw(`old.due_date = new.due_date and old.currency = new.currency`);
  const paymentChanged = sql.raw(
    ['status', 'method', 'paid_at', 'amount', 'currency']
      .map((column) => `old.${column} ${distinct} new.${column}`)
      .join(' or '),
  );

  // What the old marks said was not folded or relayed yet.
  await sql`insert into rollup_deltas ${columns} ${ledgerDelta('l')} from ledger_entries l where l.rolled_up = 0`.execute(
    db,
  );
  await sql`insert into rollup_deltas ${columns} ${paymentDelta('p', 1)} from payments p where p.rolled_status <> 'recorded' and p.status = 'recorded'`.execute(
    db,
  );
  await sql`insert into rollup_deltas ${columns} ${paymentDelta('p', -1)} from payments p where p.rolled_status = 'recorded' and p.status <> 'recorded'`.execute(
    db,
  );
  await sql`insert into rollup_deltas ${columns} ${obligationDelta('o', sql`${owed('o')} - o.rolled_owed`)} from obligations o where o.rolled_owed <> ${owed('o')}`.execute(
    db,
  );
  await sql`insert into event_outbox (event_id) select id from events where dispatched_at is null`.execute(
    db,
  );

  await db.schema.dropIndex('ledger_by_time').execute();
  await db.schema.dropIndex('payments_unrolled').execute();
  await db.schema.dropIndex('events_undispatched').execute();
  await db.schema.dropIndex('obligations_unrolled').execute();
  await db.schema.alterTable('ledger_entries').dropColumn('rolled_up').execute();
  await db.schema.alterTable('payments').dropColumn('rolled_status').execute();
  await db.schema.alterTable('events').dropColumn('dispatched_at').execute();
  await db.schema.alterTable('obligations').dropColumn('rolled_owed').execute();
  // Entries in time order: the edges of a report's range, read from the rows.
  await db.schema
    .createIndex('ledger_by_time')
    .on('ledger_entries')
    .columns(['workspace_id', 'mode', 'occurred_at'])
    .execute();

  if (pg) {
    await sql`
      create function rollup_ledger_entry() returns trigger language plpgsql as $$
      begin
        insert into rollup_deltas ${columns} ${ledgerDelta('new')};
        return null;
      end
      $$`.execute(db);
    await sql`
      create function rollup_payment() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' and old.status = 'recorded' then
          insert into rollup_deltas ${columns} ${paymentDelta('old', -1)};
        end if;
        if new.status = 'recorded' then
          insert into rollup_deltas ${columns} ${paymentDelta('new', 1)};
        end if;
        return null;
      end
      $$`.execute(db);
    await sql`
      create function rollup_obligation() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into rollup_deltas ${columns} ${obligationDelta('new', owed('new'))};
        elsif ${sameSlot} then
          insert into rollup_deltas ${columns} ${obligationDelta('new', sql`${owed('new')} - ${owed('old')}`)};
        else
          insert into rollup_deltas ${columns} ${obligationDelta('old', sql`-${owed('old')}`)};
          insert into rollup_deltas ${columns} ${obligationDelta('new', owed('new'))};
        end if;
        return null;
      end
      $$`.execute(db);
    await sql`
      create function queue_event() returns trigger language plpgsql as $$
      begin
        insert into event_outbox (event_id) values (new.id);
        return null;
      end
      $$`.execute(db);
    await sql`create trigger ledger_entries_rollup after insert on ledger_entries for each row execute function rollup_ledger_entry()`.execute(
      db,
    );
    await sql`create trigger payments_rollup_insert after insert on payments for each row when (new.status = 'recorded') execute function rollup_payment()`.execute(
      db,
    );
    await sql`create trigger payments_rollup_update after update on payments for each row when (${paymentChanged}) execute function rollup_payment()`.execute(
      db,
    );
    await sql`create trigger events_outbox after insert on events for each row execute function queue_event()`.execute(
      db,
    );
    await sql`create trigger obligations_rollup_insert after insert on obligations for each row when (${owed('new')} <> 0) execute function rollup_obligation()`.execute(
      db,
    );
    await sql`create trigger obligations_rollup_update after update on obligations for each row when (${owed('old')} <> ${owed('new')} or old.due_date <> new.due_date or old.currency <> new.currency) execute function rollup_obligation()`.execute(
      db,
    );
    return;
  }
  await sql`
    create trigger ledger_entries_rollup after insert on ledger_entries begin
      insert into rollup_deltas ${columns} ${ledgerDelta('new')};
    end`.execute(db);
  await sql`
    create trigger payments_rollup_insert after insert on payments when new.status = 'recorded' begin
      insert into rollup_deltas ${columns} ${paymentDelta('new', 1)};
    end`.execute(db);
  await sql`
    create trigger payments_rollup_out after update on payments when old.status = 'recorded' and (${paymentChanged}) begin
      insert into rollup_deltas ${columns} ${paymentDelta('old', -1)};
    end`.execute(db);
  await sql`
    create trigger payments_rollup_in after update on payments when new.status = 'recorded' and (${paymentChanged}) begin
      insert into rollup_deltas ${columns} ${paymentDelta('new', 1)};
    end`.execute(db);
  await sql`
    create trigger events_outbox after insert on events begin
      insert into event_outbox (event_id) values (new.id);
    end`.execute(db);
  await sql`
    create trigger obligations_rollup_insert after insert on obligations when ${owed('new')} <> 0 begin
      insert into rollup_deltas ${columns} ${obligationDelta('new', owed('new'))};
    end`.execute(db);
  await sql`
    create trigger obligations_rollup_update after update on obligations when ${sameSlot} and ${owed('old')} <> ${owed('new')} begin
      insert into rollup_deltas ${columns} ${obligationDelta('new', sql`${owed('new')} - ${owed('old')}`)};
    end`.execute(db);
  await sql`
    create trigger obligations_rollup_move after update on obligations when not (${sameSlot}) begin
      insert into rollup_deltas ${columns} ${obligationDelta('old', sql`-${owed('old')}`)};
      insert into rollup_deltas ${columns} ${obligationDelta('new', owed('new'))};
    end`.execute(db);
}
