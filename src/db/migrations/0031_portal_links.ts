import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. Customer page links: a signed (random, stored hashed), expiring, revocable link to a customer's own
 * page with no login. Mandates gain an index by payer, so the page (and a customer's page in the console) reads
 * a customer's mandates without the workspace's.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('portal_links')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('workspace_id', 'text', (column) => column.notNull())
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('customer_id', 'text', (column) => column.notNull())
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
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
  await db.schema.createIndex('mandates_payer').on('mandates').columns(['payer_id', 'id']).execute();
}
