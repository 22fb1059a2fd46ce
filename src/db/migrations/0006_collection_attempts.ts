import { type Kysely, sql } from 'kysely';
import { Temporal } from 'temporal-polyfill';
import { columnTypes, type DialectName } from '../dialect.js';

/**
 * Frozen. Collection attempts, providers' notifications, the test-mode provider's charges, and on each obligation of an automatic schedule the time its first attempt is
 * due (`collect_at`, the start of its due date in the schedule's zone; cleared once the attempt exists).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  const id = sql.raw(t.id);
  const instant = sql.raw(t.instant);
  const money = sql.raw(t.money);

  await db.schema.alterTable('obligations').addColumn('collect_at', instant).execute();
  // gatewayA_checkout schedules: each due obligation's checkout (its id, its page), and when it was paid.
  await db.schema.alterTable('obligations').addColumn('checkout_id', 'text').execute();
  await db.schema.alterTable('obligations').addColumn('checkout_url', 'text').execute();
  await db.schema.alterTable('obligations').addColumn('checkout_completed_at', instant).execute();
  await db.schema
    .createIndex('obligations_checkout')
    .on('obligations')
    .columns(['workspace_id', 'mode', 'checkout_id'])
    .unique()
    .where(sql.ref('checkout_id'), 'is not', null)
    .execute();
  // gatewayB_virtual_account schedules: the account transfers arrive at (JSON), and its number to find it by.
  await db.schema.alterTable('schedules').addColumn('virtual_account', 'text').execute();
  await db.schema.alterTable('schedules').addColumn('virtual_account_number', 'text').execute();
  await db.schema
    .createIndex('schedules_virtual_account')
    .on('schedules')
    .columns(['workspace_id', 'mode', 'virtual_account_number'])
    .unique()
    .where(sql.ref('virtual_account_number'), 'is not', null)
    .execute();
  const open = await db
    .selectFrom('obligations')
    .innerJoin('schedules', 'schedules.id', 'obligations.schedule_id')
    .select(['obligations.id', 'obligations.due_date', 'schedules.timezone'])
    .where('schedules.collection_method', 'in', ['auto_debit', 'mixed', 'gatewayA_checkout'])
    .where('obligations.status', 'in', ['pending', 'partially_paid', 'overdue'])
    .execute();
  for (const row of open) {
    const start = Temporal.PlainDate.from(row.due_date)
      .toZonedDateTime({ timeZone: row.timezone })
      .startOfDay();
    await db
      .updateTable('obligations')
      .set({ collect_at: new Date(start.epochMilliseconds).toISOString() })
      .where('id', '=', row.id)
      .execute();
  }
  await db.schema
    .createIndex('obligations_to_collect')
    .on('obligations')
    .column('collect_at')
    .where(sql.ref('collect_at'), 'is not', null)
    .execute();

  // The test-mode provider's own record of charges, by the caller's idempotency key: a charge sent again (a
  // worker taking over another's attempt) answers as the first did and is not made twice.
  await db.schema
    .createTable('simulated_charges')
    .addColumn('reference', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('amount', money, (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('created_at', instant, (c) => c.notNull())
    .execute();

  // Every notification a provider sent, by its own id: a notification delivered again answers as the first did.
  await db.schema
    .createTable('provider_notifications')
    .addColumn('setting_id', id, (c) => c.notNull().references('provider_settings.id'))
    .addColumn('notification_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('reference', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('payment_id', id)
    .addColumn('reason', 'text')
    .addColumn('received_at', instant, (c) => c.notNull())
    .addPrimaryKeyConstraint('provider_notifications_pk', ['setting_id', 'notification_id'])
    .execute();

  await db.schema
    .createTable('attempts')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('schedule_id', id, (c) => c.notNull().references('schedules.id'))
    .addColumn('obligation_id', id, (c) => c.notNull().references('obligations.id'))
    .addColumn('mandate_id', id)
    .addColumn('provider', 'text')
    .addColumn('amount', money, (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('scheduled_for', instant, (c) => c.notNull())
    .addColumn('attempted_at', instant)
    .addColumn('attempt_number', 'integer', (c) => c.notNull())
    .addColumn('first_failed_at', instant)
    .addColumn('failure_code', 'text')
    .addColumn('failure_message', 'text')
    .addColumn('next_retry_at', instant)
    .addColumn('no_retry_reason', 'text')
    .addColumn('blocked_reason', 'text')
    .addColumn('payment_id', id)
    .addColumn('provider_reference', 'text')
    .addColumn('created_at', instant, (c) => c.notNull())
    .addColumn('updated_at', instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('attempts_list')
    .on('attempts')
    .columns(['workspace_id', 'mode', 'id'])
    .execute();
  await db.schema
    .createIndex('attempts_try')
    .on('attempts')
    .columns(['obligation_id', 'attempt_number'])
    .unique()
    .execute();
  await db.schema.createIndex('attempts_schedule').on('attempts').columns(['schedule_id', 'id']).execute();
  // What the run sweep looks at: attempts waiting for their time or for their cause to go, and charges in flight.
  await db.schema
    .createIndex('attempts_to_run')
    .on('attempts')
    .column('scheduled_for')
    .where(sql.ref('status'), 'in', ['scheduled', 'blocked', 'processing'])
    .execute();
}
