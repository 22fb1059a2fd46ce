import { type Kysely, sql } from 'kysely';
import { columnTypes, type DialectName } from '../dialect.js';

/**
 * Frozen. An advance steps through the instants where something falls due on the way; an advancing test clock
 * keeps the step its worker has to go on from (`swept_to`): the due work before it is done.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const instant = sql.raw(columnTypes(dialect).instant);
  await db.schema.alterTable('test_clocks').addColumn('swept_to', instant).execute();
}
