import { type Kysely, type SqlBool, sql } from 'kysely';
import { columnTypes, type DialectName } from '../dialect.js';

const OPEN = ['pending', 'partially_paid', 'overdue'];

/**
 * Frozen. Maintained report totals and the indexes reports read.
 *
 * `report_rollups` holds, per tenant, source (`ledger` or `payments`), currency, kind (a ledger entry type, with
 * `~no_plan` for entries without a plan; a payment method) and UTC quarter hour (`YYYY-MM-DDTHH:MM`), the sum
 * and count of what was folded in. `ledger_entries.rolled_up` (0 or 1) and `payments.rolled_status` (the status a
 * payment was last folded in with; '' before) say what is in it: the rollup sweep folds rows whose mark differs
 * and sets the mark in the same transaction, so a report read in one snapshot counts every row exactly once,
 * from the rollup or from the row itself.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  const id = sql.raw(t.id);
  const money = sql.raw(t.money);

  await db.schema
    .createTable('report_rollups')
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('slot', 'text', (c) => c.notNull())
    .addColumn('amount', money, (c) => c.notNull())
    .addColumn('count', money, (c) => c.notNull())
    .addPrimaryKeyConstraint('report_rollups_pk', [
      'workspace_id',
      'mode',
      'source',
      'slot',
      'currency',
      'kind',
    ])
    .execute();

  await db.schema
    .alterTable('ledger_entries')
    .addColumn('rolled_up', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('payments')
    .addColumn('rolled_status', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  // Entries in time order, those not folded yet first: the rows a report reads beside the rollup.
  await db.schema
    .createIndex('ledger_by_time')
    .on('ledger_entries')
    .columns(['workspace_id', 'mode', 'rolled_up', 'occurred_at'])
    .execute();
  await db.schema
    .createIndex('payments_unrolled')
    .on('payments')
    // The mark is a column too: SQLite, without statistics, then prefers this index to payments_paid.
    .columns(['workspace_id', 'mode', 'rolled_status', 'paid_at'])
    .where(sql<SqlBool>`rolled_status <> status`)
    .execute();
  await db.schema
    .createIndex('payments_paid')
    .on('payments')
    .columns(['workspace_id', 'mode', 'paid_at'])
    .execute();

  await db.schema
    .createIndex('customers_status')
    .on('customers')
    .columns(['workspace_id', 'mode', 'status'])
    .execute();
  await db.schema
    .createIndex('tracks_status')
    .on('tracks')
    .columns(['workspace_id', 'mode', 'status'])
    .execute();
  await db.schema
    .createIndex('tracks_due')
    .on('tracks')
    .columns(['workspace_id', 'mode', 'due_date'])
    .execute();
  await db.schema
    .createIndex('tracks_active_due')
    .on('tracks')
    .columns(['workspace_id', 'mode', 'due_date', 'id', 'balance', 'currency'])
    .where(sql.ref('status'), '=', 'active')
    .execute();
  await db.schema
    .createIndex('obligations_open_overdue')
    .on('obligations')
    .columns(['workspace_id', 'mode', 'overdue_at'])
    .where(sql.ref('status'), 'in', OPEN)
    .execute();
  await db.schema
    .createIndex('obligations_open_due')
    .on('obligations')
    .columns(['workspace_id', 'mode', 'due_date', 'currency', 'amount', 'amount_paid'])
    .where(sql.ref('status'), 'in', OPEN)
    .execute();
  await db.schema
    .createIndex('obligations_paid')
    .on('obligations')
    .columns(['workspace_id', 'mode', 'paid_at'])
    .where(sql.ref('status'), '=', 'paid')
    .execute();
}
