import { type Kysely, type SqlBool, sql } from 'kysely';
import { columnTypes, type DialectName } from '../dialect.js';

/**
 * Frozen. What open obligations still owe, kept in `report_rollups` (source `obligations`, slot the due date):
 * `obligations.rolled_owed` is what the obligation was last counted as owing (0 before); the rollup sweep folds
 * obligations whose owed amount (what is left of an open one, else 0) differs from it, in the same transaction
 * that sets it. The index of open obligations by overdue time also carries what the overdue report adds up, so
 * that it reads the index alone.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const money = sql.raw(columnTypes(dialect).money);
  await db.schema
    .alterTable('obligations')
    .addColumn('rolled_owed', money, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('obligations_unrolled')
    .on('obligations')
    .columns(['workspace_id', 'mode', 'due_date'])
    .where(
      sql<SqlBool>`rolled_owed <> case when status in ('pending', 'partially_paid', 'overdue') then amount - amount_paid else 0 end`,
    )
    .execute();
  await db.schema.dropIndex('obligations_open_overdue').execute();
  await db.schema
    .createIndex('obligations_open_overdue')
    .on('obligations')
    .columns([
      'workspace_id',
      'mode',
      'overdue_at',
      'track_id',
      'schedule_id',
      'currency',
      'due_date',
      'amount',
      'amount_paid',
    ])
    .where(sql.ref('status'), 'in', ['pending', 'partially_paid', 'overdue'])
    .execute();
}
