import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. Customer page links: a signed (random, stored hashed), expiring, revocable link to a customer's own
 * page with no login. Mandates gain an index by payer, so the page (and a customer's page in the console) reads
 * a customer's mandates without the workspace's. Workspaces gain their receipt settings (JSON, null for the
 * defaults) and whether automatic reminders carry a link to the customer's page; a reminder that sends a
 * receipt names its payment, and one that sends a customer page link names that link.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('portal_links')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('workspace_id', 'text', (column) => column.notNull())
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('customer_id', 'text', (column) => column.notNull())
    // Null until a link sent by a reminder is sent: its token is made then, so it is never stored.
    .addColumn('token_hash', 'text', (column) => column.unique())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('last_opened_at', 'text')
    .execute();
  await db.schema
    .createIndex('portal_links_customer')
    .on('portal_links')
    .columns(['workspace_id', 'mode', 'customer_id', 'id'])
    .execute();
  await db.schema.alterTable('workspaces').addColumn('receipt_settings', 'text').execute();
  await db.schema
    .alterTable('workspaces')
    .addColumn('customer_page_in_reminders', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('reminders').addColumn('payment_id', 'text').execute();
  await db.schema.alterTable('reminders').addColumn('portal_link_id', 'text').execute();
  await db.schema.createIndex('mandates_payer').on('mandates').columns(['payer_id', 'id']).execute();
}
