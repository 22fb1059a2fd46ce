import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. A target's schedules (`GET /collection-schedules?target_id=`, what a plan's page reads) newest first from
 * an index of their own: at 100,000 plans the list read the workspace's schedules to find one plan's.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema.createIndex('schedules_target').on('schedules').columns(['target_id', 'id']).execute();
}
