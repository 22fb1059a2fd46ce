import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';

const NOT_NULL_TRACK = '"track_id" text not null references';

/**
 * Frozen. A payment collected for a schedule without a plan has no plan (`track_id` null), and a mandate keeps the
 * id its provider gave it once registered there. SQLite cannot drop a NOT NULL: the table is rebuilt from its
 * own stored definition, then its indexes (nothing references payments).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema.alterTable('mandates').addColumn('provider_mandate_id', 'text').execute();
  if (dialect === 'postgres') {
    await sql`alter table payments alter column track_id drop not null`.execute(db);
    return;
  }
  const { rows } = await sql<{
    type: string;
    sql: string | null;
  }>`select type, sql from sqlite_master where tbl_name = 'payments' and sql is not null`.execute(db);
  const table = rows.find((row) => row.type === 'table')?.sql ?? '';
  if (!table.includes(NOT_NULL_TRACK)) throw new Error(`payments is not as 0006 left it: ${table}`);
  const rebuilt = table
    .replace('CREATE TABLE "payments"', 'CREATE TABLE "payments_rebuilt"')
    .replace(NOT_NULL_TRACK, '"track_id" text references');
  await sql.raw(rebuilt).execute(db);
  await sql`insert into payments_rebuilt select * from payments`.execute(db);
  await sql`drop table payments`.execute(db);
  await sql`alter table payments_rebuilt rename to payments`.execute(db);
  for (const index of rows.filter((row) => row.type === 'index')) await sql.raw(index.sql ?? '').execute(db);
}
