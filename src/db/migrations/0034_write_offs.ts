import { type Kysely, sql } from 'kysely';
import { columnTypes, type DialectName } from '../dialect.js';

/**
 * Frozen. Write-offs: what a business gave up of a plan's balance, each with the ledger entry that lowered it and
 * what it did to each obligation and schedule (before and after, JSON), so that it can be reversed exactly while
 * it is the plan's last money change. At most one dispute is open per target (its payment, else its obligation,
 * else its plan), so two made at once cannot both stand.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  const id = sql.raw(t.id);
  const instant = sql.raw(t.instant);
  const money = sql.raw(t.money);

  await db.schema
    .createTable('write_offs')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('track_id', id, (c) => c.notNull().references('tracks.id'))
    .addColumn('amount', money, (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('ledger_entry_id', id, (c) => c.notNull())
    // JSON: each obligation changed `{id, statusBefore, amountBefore, statusAfter, amountAfter}`, and each
    // schedule the write-off completed `{id, statusBefore, topUpAtBefore}`.
    .addColumn('obligations', 'text', (c) => c.notNull())
    .addColumn('schedules', 'text', (c) => c.notNull())
    .addColumn('created_at', instant, (c) => c.notNull())
    .addColumn('reversed_at', instant)
    .execute();
  await db.schema.createIndex('write_offs_track').on('write_offs').columns(['track_id', 'id']).execute();

  await db.schema
    .createIndex('disputes_one_open_target')
    .on('disputes')
    .expression(sql`coalesce(payment_id, obligation_id, track_id)`)
    .unique()
    .where(sql.ref('status'), '=', 'open')
    .execute();
}
