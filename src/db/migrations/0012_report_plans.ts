import { type Kysely, type SqlBool, sql } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. Conditions PostgreSQL's planner can estimate. It cannot estimate `rolled_status <> status` (two
 * columns), took it for nearly every payment and read the whole table; the same condition written over single
 * columns (a payment's status only ever goes from recorded to reversed, listed both ways all the same) is
 * estimated from each column's statistics. Overdue obligations are read by status (the overdue sweep sets it)
 * from an index that carries what the overdue report adds up; the index by overdue time is narrow again.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema.dropIndex('payments_unrolled').execute();
  await db.schema
    .createIndex('payments_unrolled')
    .on('payments')
    .columns(['workspace_id', 'mode', 'rolled_status', 'paid_at'])
    .where(
      sql<SqlBool>`(rolled_status = '' or (rolled_status = 'recorded' and status = 'reversed') or (rolled_status = 'reversed' and status = 'recorded'))`,
    )
    .execute();
  await db.schema
    .createIndex('obligations_overdue')
    .on('obligations')
    .columns([
      'workspace_id',
      'mode',
      'track_id',
      'schedule_id',
      'currency',
      'due_date',
      'amount',
      'amount_paid',
    ])
    .where(sql.ref('status'), '=', 'overdue')
    .execute();
  await db.schema.dropIndex('obligations_open_overdue').execute();
  await db.schema
    .createIndex('obligations_open_overdue')
    .on('obligations')
    .columns(['workspace_id', 'mode', 'overdue_at'])
    .where(sql.ref('status'), 'in', ['pending', 'partially_paid', 'overdue'])
    .execute();
}
