import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. Export formats become csv, json (one JSON array) and jsonl (JSON lines). Exports made before were asked
 * for as `json` and written as JSON lines: they are `jsonl` now, so their files keep the type they were written in.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.updateTable('report_exports').set({ format: 'jsonl' }).where('format', '=', 'json').execute();
}
