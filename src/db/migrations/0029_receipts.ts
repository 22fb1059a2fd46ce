import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. Receipts: every payment of fresh money carries a receipt number with no gaps per workspace and mode,
 * a short verification code (what `/r/<code>` looks up) and the plan's balance right after it. Numbers come from
 * one counter row per workspace and mode, taken in the payment's own transaction, so a payment rolled back
 * leaves no gap. Payments already recorded are numbered here in the order they were made.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('payments')
    .addColumn('receipt_number', dialect === 'postgres' ? 'bigint' : 'integer')
    .execute();
  await db.schema.alterTable('payments').addColumn('receipt_code', 'text').execute();
  await db.schema.alterTable('payments').addColumn('balance_after', 'bigint').execute();
  await db.schema
    .createTable('receipt_counters')
    .addColumn('workspace_id', 'text', (column) => column.notNull())
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('last_number', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('receipt_counters_pkey', ['workspace_id', 'mode'])
    .execute();
  // Fresh money only: the parts of a split credit are covered by the credit's own receipt (an overpayment's
  // excess, split from a payment still recorded, is money of its own and has one).
  const randomCode =
    dialect === 'postgres'
      ? sql`upper(substr(md5(random()::text || p.id), 1, 12))`
      : sql`upper(hex(randomblob(6)))`;
  await sql`update payments as p set receipt_number = n.number, receipt_code = ${randomCode}
    from (select id, row_number() over (partition by workspace_id, mode order by created_at, id) as number
          from payments as q where q.split_from is null
            or not exists (select 1 from payments as s where s.id = q.split_from and s.status = 'split')) as n
    where p.id = n.id`.execute(db);
  await sql`insert into receipt_counters (workspace_id, mode, last_number)
    select workspace_id, mode, max(receipt_number) from payments
    where receipt_number is not null group by workspace_id, mode`.execute(db);
  await db.schema
    .createIndex('payments_receipt_code')
    .on('payments')
    .column('receipt_code')
    .unique()
    .execute();
}
