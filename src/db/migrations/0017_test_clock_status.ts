import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/** 3,652 days: the furthest a test clock may be ahead of real time. */
const MAX_OFFSET_MS = 3_652 * 86_400_000;

/**
 * Frozen. A test clock is `ready`, or `advancing` while the worker finishes the due work of an advance too large
 * to run before answering. Clocks moved further than 3,652 days ahead before that bound existed (one reached year
 * 10000, whose timestamps neither database nor the API could read) are brought back to it.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('test_clocks')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('ready'))
    .execute();
  await db
    .updateTable('test_clocks')
    .set({ offset_ms: MAX_OFFSET_MS })
    .where('offset_ms', '>', MAX_OFFSET_MS)
    .execute();
}
