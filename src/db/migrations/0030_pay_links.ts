import { type Kysely, sql } from 'kysely';
import { columnTypes, type DialectName } from '../dialect.js';

/**
 * Frozen. Pay links: a plan's amount offered to its payer at `PUBLIC_URL/pay/<token>`, paid through the
 * workspace's checkout provider. Only the token's SHA-256 is kept. Each press of the page's Pay button starts a
 * checkout of its own (`pay_link_checkouts`, whose key is the checkout id a provider's report names: the lookup
 * by checkout); the link keeps the one that paid it. The token's hash is unique, so it has its own index.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  const id = sql.raw(t.id);
  const instant = sql.raw(t.instant);
  const money = sql.raw(t.money);

  await db.schema
    .createTable('pay_links')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('track_id', id, (c) => c.notNull().references('tracks.id'))
    .addColumn('customer_id', id, (c) => c.notNull().references('customers.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('amount', money, (c) => c.notNull())
    .addColumn('min_amount', money, (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', instant, (c) => c.notNull())
    .addColumn('checkout_id', 'text')
    .addColumn('checkout_provider', 'text')
    .addColumn('checkout_provider_reference', 'text')
    .addColumn('payment_id', id)
    .addColumn('amount_paid', money)
    .addColumn('created_at', instant, (c) => c.notNull())
    .addColumn('paid_at', instant)
    .addColumn('revoked_at', instant)
    .execute();
  await db.schema
    .createIndex('pay_links_track')
    .on('pay_links')
    .columns(['workspace_id', 'mode', 'track_id', 'id'])
    .execute();

  await db.schema
    .createTable('pay_link_checkouts')
    .addColumn('checkout_id', 'text', (c) => c.primaryKey())
    .addColumn('pay_link_id', id, (c) => c.notNull().references('pay_links.id'))
    .addColumn('workspace_id', id, (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('amount', money, (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_reference', 'text')
    .addColumn('created_at', instant, (c) => c.notNull())
    .addColumn('completed_at', instant)
    .addColumn('payment_id', id)
    .execute();
  await db.schema
    .createIndex('pay_link_checkouts_link')
    .on('pay_link_checkouts')
    .columns(['pay_link_id', 'checkout_id'])
    .execute();
}
