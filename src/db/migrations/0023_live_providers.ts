import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. Live payment providers: a setting's credentials (sealed with PAYTRACK_SECRET_KEY) and the rails it
 * serves; the provider's own webhook events, kept once by their id; what a mandate's provider authorization and
 * payment method are; the provider's raw failure code beside an attempt's normalised one, and when a charge
 * whose outcome is not known yet is asked about; which provider made an obligation's checkout; what the test-mode
 * simulator of Paystack and Stripe keeps (authorizations, charges) to answer as they would; which provider took a
 * payment, under what reference, and where its refund stands.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable('provider_settings').addColumn('secret_key', 'text').execute();
  await db.schema.alterTable('provider_settings').addColumn('webhook_secret', 'text').execute();
  await db.schema.alterTable('provider_settings').addColumn('key_last4', 'text').execute();
  await db.schema
    .alterTable('provider_settings')
    .addColumn('rails', 'text', (column) => column.notNull().defaultTo(''))
    .execute();

  await db.schema
    .createTable('provider_webhook_events')
    .addColumn('setting_id', 'text', (column) => column.notNull())
    .addColumn('event_id', 'text', (column) => column.notNull())
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('outcome', 'text', (column) => column.notNull())
    .addColumn('detail', 'text')
    .addColumn('received_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('provider_webhook_events_pk', ['setting_id', 'event_id'])
    .execute();

  await db.schema
    .createTable('simulator_records')
    .addColumn('key', 'text', (column) => column.primaryKey())
    .addColumn('state', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();

  for (const column of [
    'authorization_reference',
    'authorization_url',
    'provider_reference',
    'customer_reference',
    'payer_email',
    'payment_method_type',
    'payment_method_bank',
    'payment_method_last4',
  ]) {
    await db.schema.alterTable('mandates').addColumn(column, 'text').execute();
  }
  await db.schema.alterTable('attempts').addColumn('provider_failure_code', 'text').execute();
  await db.schema.alterTable('attempts').addColumn('reconcile_at', 'text').execute();
  await db.schema.alterTable('obligations').addColumn('checkout_provider', 'text').execute();
  await db.schema.alterTable('obligations').addColumn('checkout_provider_reference', 'text').execute();
  for (const column of [
    'provider',
    'provider_reference',
    'refund_status',
    'refund_provider_reference',
    'refund_failure_reason',
  ]) {
    await db.schema.alterTable('payments').addColumn(column, 'text').execute();
  }
}
