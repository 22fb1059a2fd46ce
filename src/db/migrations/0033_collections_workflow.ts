import { type Kysely, sql } from 'kysely';
import { columnTypes, type DialectName } from '../dialect.js';

/**
 * Frozen. The collections workflow's records: promises to pay and disputes, each on a plan or one obligation
 * (a dispute also on a payment), open until they resolve. At most one promise is open per plan, so two made at
 * once cannot both stand. Obligations gain their kind (instalment or fee): a fee is an obligation of its own
 * on the schedule of the instalment it follows, so the one-obligation-per-due-date rule holds for instalments
 * only.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  const id = sql.raw(t.id);
  const instant = sql.raw(t.instant);
  const money = sql.raw(t.money);

  await db.schema
    .createTable('promises')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('track_id', id, (c) => c.notNull().references('tracks.id'))
    .addColumn('obligation_id', id, (c) => c.references('obligations.id'))
    .addColumn('customer_id', id, (c) => c.notNull())
    .addColumn('amount', money, (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    // The calendar date in the workspace zone, and the start of the day after it: broken then unless kept.
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('due_at', instant, (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', instant, (c) => c.notNull())
    .addColumn('resolved_at', instant)
    .addColumn('updated_at', instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('promises_list')
    .on('promises')
    .columns(['workspace_id', 'mode', 'id'])
    .execute();
  await db.schema.createIndex('promises_track').on('promises').columns(['track_id', 'id']).execute();
  await db.schema
    .createIndex('promises_one_open')
    .on('promises')
    .column('track_id')
    .unique()
    .where(sql.ref('status'), '=', 'open')
    .execute();
  await db.schema
    .createIndex('promises_falling_due')
    .on('promises')
    .columns(['due_at'])
    .where(sql.ref('status'), '=', 'open')
    .execute();

  await db.schema
    .createTable('disputes')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    // The plan it concerns (for an obligation or a payment, theirs; null for an obligation of a schedule
    // without a plan), and the obligation or payment when it names one.
    .addColumn('track_id', id, (c) => c.references('tracks.id'))
    .addColumn('obligation_id', id, (c) => c.references('obligations.id'))
    .addColumn('payment_id', id, (c) => c.references('payments.id'))
    .addColumn('customer_id', id)
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    // JSON: the outcome of an accepted dispute (`{type, amount, ...ids}`), null otherwise.
    .addColumn('resolution', 'text')
    .addColumn('resolution_note', 'text')
    .addColumn('created_at', instant, (c) => c.notNull())
    .addColumn('resolved_at', instant)
    .addColumn('updated_at', instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('disputes_list')
    .on('disputes')
    .columns(['workspace_id', 'mode', 'id'])
    .execute();
  await db.schema
    .createIndex('disputes_open_track')
    .on('disputes')
    .columns(['track_id'])
    .where(sql.ref('status'), '=', 'open')
    .execute();
  await db.schema
    .createIndex('disputes_open_obligation')
    .on('disputes')
    .columns(['obligation_id'])
    .where(sql.ref('status'), '=', 'open')
    .execute();

  await db.schema
    .alterTable('obligations')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('instalment'))
    .execute();
  await db.schema.dropIndex('obligations_schedule_due').execute();
  await db.schema
    .createIndex('obligations_schedule_due')
    .on('obligations')
    .columns(['schedule_id', 'due_date'])
    .unique()
    .where(sql.ref('kind'), '=', 'instalment')
    .execute();
}
