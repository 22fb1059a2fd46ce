import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. Live message providers: a workspace's SMS and WhatsApp provider per mode (its credentials sealed with
 * PAYTRACK_SECRET_KEY, its senders, the token of its callback URL); the provider's callbacks, kept once by their
 * id; what became of each message after it was handed over (delivered or not, and when), and the e-mail a message
 * that was not delivered fell back to; the replies customers
 * send; the channels a customer opted out of and the time zone of their quiet hours; a workspace's contact
 * policy; why a message was held back.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('message_settings')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('workspace_id', 'text', (column) => column.notNull())
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('provider', 'text', (column) => column.notNull())
    .addColumn('credentials', 'text', (column) => column.notNull())
    .addColumn('credentials_hint', 'text', (column) => column.notNull())
    .addColumn('sms_from', 'text')
    .addColumn('whatsapp_from', 'text')
    .addColumn('callback_token', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('message_settings_tenant')
    .on('message_settings')
    .columns(['workspace_id', 'mode'])
    .unique()
    .execute();

  await db.schema
    .createTable('message_callback_events')
    .addColumn('setting_id', 'text', (column) => column.notNull())
    .addColumn('event_id', 'text', (column) => column.notNull())
    .addColumn('outcome', 'text', (column) => column.notNull())
    .addColumn('received_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('message_callback_events_pk', ['setting_id', 'event_id'])
    .execute();

  await db.schema.alterTable('reminders').addColumn('fallback_of', 'text').execute();
  await db.schema.alterTable('reminder_logs').addColumn('delivered_at', 'text').execute();
  await db.schema.alterTable('reminder_logs').addColumn('provider_error_code', 'text').execute();
  await db.schema
    .createIndex('reminder_logs_provider_message')
    .on('reminder_logs')
    .columns(['provider', 'provider_message_id'])
    .execute();

  await db.schema
    .createTable('inbound_messages')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('workspace_id', 'text', (column) => column.notNull())
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('customer_id', 'text')
    .addColumn('channel', 'text', (column) => column.notNull())
    .addColumn('from_number', 'text', (column) => column.notNull())
    .addColumn('text', 'text', (column) => column.notNull())
    .addColumn('action', 'text', (column) => column.notNull())
    .addColumn('provider', 'text', (column) => column.notNull())
    .addColumn('provider_message_id', 'text')
    .addColumn('received_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('inbound_messages_list')
    .on('inbound_messages')
    .columns(['workspace_id', 'mode', 'id'])
    .execute();

  await db.schema
    .alterTable('customers')
    .addColumn('opt_outs', 'text', (column) => column.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('customers').addColumn('time_zone', 'text').execute();
  await db.schema.alterTable('workspaces').addColumn('contact_policy', 'text').execute();
  await db.schema.alterTable('reminder_logs').addColumn('skip_reason', 'text').execute();
}
