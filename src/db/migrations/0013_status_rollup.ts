import { type Kysely, type SqlBool, sql } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. How many plans and customers each status has, kept in `report_rollups` (sources `plans` and
 * `customers`, kind the status): `rolled_status` is the status a row was last counted with ('' before its first
 * count). The condition of rows not counted as they are is written over single columns (each status the mark may
 * hold, and a status other than it), so that PostgreSQL estimates it and SQLite matches it to its index; the
 * index carries the status too, so that counting reads it alone (SQLite otherwise prefers the index by status).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  for (const [table, condition] of [
    [
      'tracks',
      sql<SqlBool>`(rolled_status = '' or (rolled_status = 'active' and status <> 'active') or (rolled_status = 'completed' and status <> 'completed') or (rolled_status = 'archived' and status <> 'archived'))`,
    ],
    [
      'customers',
      sql<SqlBool>`(rolled_status = '' or (rolled_status = 'active' and status <> 'active') or (rolled_status = 'archived' and status <> 'archived'))`,
    ],
  ] as const) {
    await db.schema
      .alterTable(table)
      .addColumn('rolled_status', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema
      .createIndex(`${table}_unrolled`)
      .on(table)
      .columns(['workspace_id', 'mode', 'rolled_status', 'status'])
      .where(condition)
      .execute();
  }
}
