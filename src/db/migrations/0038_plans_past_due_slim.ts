import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. The index of active plans by due date no longer carries their balance (nor id and currency): every
 * payment changes a plan's balance, so with it in an index PostgreSQL wrote each payment's plan row anew with an
 * entry in every index of plans (no update was HOT: 64 plans after 24,594 payments took 6.2 MB), and SQLite
 * rewrote that index's entry. The report of plans past due reads the few rows it finds from the table.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema.dropIndex('tracks_active_due').execute();
  await db.schema
    .createIndex('tracks_active_due')
    .on('tracks')
    .columns(['workspace_id', 'mode', 'due_date'])
    .where(sql.ref('status'), '=', 'active')
    .execute();
}
