import { type Kysely, sql } from 'kysely';
import { Temporal } from 'temporal-polyfill';
import { columnTypes, type DialectName } from '../dialect.js';

/**
 * Frozen. Reminders and their delivery log, and on each obligation of a reminder_only or mixed schedule its next
 * automatic reminder stage (`remind_stage`, 0 to 3: 3 days before due, the due day, 3 and 7 days after) and the
 * start of that stage's day in the schedule's zone (`remind_at`; null once no stage is left).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  const id = sql.raw(t.id);
  const instant = sql.raw(t.instant);

  await db.schema
    .createTable('reminders')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('customer_id', id, (c) => c.notNull().references('customers.id'))
    .addColumn('track_id', id, (c) => c.references('tracks.id'))
    .addColumn('obligation_id', id, (c) => c.references('obligations.id'))
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    // 1: the message comes from a template and is written again, with the figures of the moment, when sent.
    .addColumn('templated', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('skip_reason', 'text')
    .addColumn('send_at', instant, (c) => c.notNull())
    // When the send sweep takes it next (send_at, then a retry's or quiet hours' time); null once it is final.
    .addColumn('next_try_at', instant)
    // A worker sending it holds it until then; another takes it over afterwards.
    .addColumn('claimed_until', instant)
    .addColumn('sent_at', instant)
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('stage', 'text')
    .addColumn('created_at', instant, (c) => c.notNull())
    .addColumn('updated_at', instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('reminders_list')
    .on('reminders')
    .columns(['workspace_id', 'mode', 'id'])
    .execute();
  await db.schema
    .createIndex('reminders_due')
    .on('reminders')
    .columns(['mode', 'next_try_at'])
    .where(sql.ref('next_try_at'), 'is not', null)
    .execute();
  // Each obligation and automatic stage at most once, whatever the number of workers.
  await db.schema
    .createIndex('reminders_stage')
    .on('reminders')
    .columns(['obligation_id', 'stage'])
    .unique()
    .where(sql.ref('stage'), 'is not', null)
    .execute();

  await db.schema
    .createTable('reminder_logs')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('reminder_id', id, (c) => c.notNull().references('reminders.id'))
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_message_id', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('reminder_logs_list')
    .on('reminder_logs')
    .columns(['workspace_id', 'mode', 'id'])
    .execute();
  await db.schema
    .createIndex('reminder_logs_reminder')
    .on('reminder_logs')
    .columns(['reminder_id', 'id'])
    .execute();

  await db.schema.alterTable('obligations').addColumn('remind_stage', 'integer').execute();
  await db.schema.alterTable('obligations').addColumn('remind_at', instant).execute();
  const open = await db
    .selectFrom('obligations')
    .innerJoin('schedules', 'schedules.id', 'obligations.schedule_id')
    .select(['obligations.id', 'obligations.due_date', 'schedules.timezone'])
    .where('schedules.collection_method', 'in', ['reminder_only', 'mixed'])
    .where('obligations.status', 'in', ['pending', 'partially_paid', 'overdue'])
    .execute();
  for (const row of open) {
    const start = Temporal.PlainDate.from(row.due_date)
      .subtract({ days: 3 })
      .toZonedDateTime({ timeZone: row.timezone })
      .startOfDay();
    await db
      .updateTable('obligations')
      .set({ remind_stage: 0, remind_at: new Date(start.epochMilliseconds).toISOString() })
      .where('id', '=', row.id)
      .execute();
  }
  await db.schema
    .createIndex('obligations_to_remind')
    .on('obligations')
    .column('remind_at')
    .where(sql.ref('remind_at'), 'is not', null)
    .execute();
}
