import { type Kysely, sql } from 'kysely';
import { columnTypes, type DialectName } from '../dialect.js';

/**
 * Frozen. Late fees: a schedule's policy (JSON, null for none) and the workspace's default (JSON, null for none).
 * An instalment keeps when its next fee period falls due (`fee_next_at`, indexed for the sweep) and which period
 * that is (`fee_period`); a fee obligation names the instalment it follows (`fee_of`) and its period
 * (`fee_period`), unique together, so the database itself never lets a period be charged twice.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await db.schema.alterTable('schedules').addColumn('late_fee', 'text').execute();
  await db.schema.alterTable('workspaces').addColumn('late_fee_default', 'text').execute();
  await db.schema.alterTable('obligations').addColumn('fee_next_at', sql.raw(t.instant)).execute();
  await db.schema.alterTable('obligations').addColumn('fee_of', sql.raw(t.id)).execute();
  await db.schema.alterTable('obligations').addColumn('fee_period', 'integer').execute();
  await db.schema
    .createIndex('obligations_fee_next')
    .on('obligations')
    .columns(['fee_next_at'])
    .where(sql.ref('fee_next_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('obligations_fee_period')
    .on('obligations')
    .columns(['fee_of', 'fee_period'])
    .unique()
    .where(sql.ref('fee_of'), 'is not', null)
    .execute();
}
