import { type Kysely, type SqlBool, sql } from 'kysely';
import type { DialectName } from '../dialect.js';

const NOT_NULL_CUSTOMER = '"customer_id" text not null references';

/**
 * Frozen. Money a provider reports is always a payment: one no plan took carries why (`unapplied_reason`), and
 * one whose reference matches nothing has no customer either (`customer_id` null). An unapplied payment applied
 * to a plan in part is split (status `split`) into the part the plan took and the credit left, each naming it
 * (`split_from`; the split one lists them in `split_into`). The reports' rollup counts a split payment out, as a
 * reversed one. A reversed payment gives its reference back (its `reference_key` is cleared when reversed).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table payments alter column customer_id drop not null`.execute(db);
  } else {
    const { rows } = await sql<{
      type: string;
      sql: string | null;
    }>`select type, sql from sqlite_master where tbl_name = 'payments' and sql is not null`.execute(db);
    const table = rows.find((row) => row.type === 'table')?.sql ?? '';
    if (!table.includes(NOT_NULL_CUSTOMER)) throw new Error(`payments is not as 0013 left it: ${table}`);
    const rebuilt = table
      .replace('CREATE TABLE "payments"', 'CREATE TABLE "payments_rebuilt"')
      .replace(NOT_NULL_CUSTOMER, '"customer_id" text references');
    await sql.raw(rebuilt).execute(db);
    await sql`insert into payments_rebuilt select * from payments`.execute(db);
    await sql`drop table payments`.execute(db);
    await sql`alter table payments_rebuilt rename to payments`.execute(db);
    for (const index of rows.filter((row) => row.type === 'index'))
      await sql.raw(index.sql ?? '').execute(db);
  }
  await db.schema.alterTable('payments').addColumn('unapplied_reason', 'text').execute();
  await db.schema.alterTable('payments').addColumn('split_from', 'text').execute();
  await db.schema.alterTable('payments').addColumn('split_into', 'text').execute();
  // What a customer has in credit: its unapplied payments, read per customer.
  await db.schema
    .createIndex('payments_unapplied')
    .on('payments')
    .columns(['workspace_id', 'mode', 'customer_id', 'currency'])
    .where(sql<SqlBool>`unapplied_reason is not null and status = 'recorded' and track_id is null`)
    .execute();
  await sql`update payments set reference_key = null where status = 'reversed'`.execute(db);
  await db.schema.dropIndex('payments_unrolled').execute();
  await db.schema
    .createIndex('payments_unrolled')
    .on('payments')
    .columns(['workspace_id', 'mode', 'rolled_status', 'paid_at'])
    .where(
      sql<SqlBool>`(rolled_status = '' or (rolled_status = 'recorded' and status = 'reversed') or (rolled_status = 'recorded' and status = 'split') or (rolled_status = 'reversed' and status = 'recorded'))`,
    )
    .execute();
}
