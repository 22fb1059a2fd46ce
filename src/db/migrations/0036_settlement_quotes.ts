import { type Kysely, sql } from 'kysely';
import { columnTypes, type DialectName } from '../dialect.js';

/**
 * Frozen. Settlement quotes: what clears a plan on a day, kept so that a payment can name one (and use it once).
 * Schedules gain their early-settlement discount policy (JSON `{type, value}`, null for none).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  const id = sql.raw(t.id);
  const instant = sql.raw(t.instant);
  const money = sql.raw(t.money);

  await db.schema
    .createTable('settlement_quotes')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('track_id', id, (c) => c.notNull().references('tracks.id'))
    .addColumn('as_of', 'text', (c) => c.notNull())
    .addColumn('amount', money, (c) => c.notNull())
    .addColumn('discount', money, (c) => c.notNull())
    .addColumn('fees_included', money, (c) => c.notNull())
    .addColumn('balance_at_quote', money, (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('valid_until', instant, (c) => c.notNull())
    .addColumn('used_by_payment_id', id)
    .addColumn('created_at', instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('settlement_quotes_track')
    .on('settlement_quotes')
    .columns(['track_id', 'id'])
    .execute();

  await db.schema.alterTable('schedules').addColumn('early_settlement_discount', 'text').execute();
}
