import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. Obligations listed across schedules in the order they fall due (due date, then id): a tenant's in that
 * order, with a status in that order, and a plan's (all statuses; its open ones have their own partial index) in
 * that order, so each filter of `GET /obligations` reads a page from an index range without sorting.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createIndex('obligations_by_due')
    .on('obligations')
    .columns(['workspace_id', 'mode', 'due_date', 'id'])
    .execute();
  await db.schema
    .createIndex('obligations_status_due')
    .on('obligations')
    .columns(['workspace_id', 'mode', 'status', 'due_date', 'id'])
    .execute();
  await db.schema
    .createIndex('obligations_track_due')
    .on('obligations')
    .columns(['track_id', 'due_date', 'id'])
    .execute();
}
