import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. Customers are found by their phone (`GET /customers?phone=`, and `q` when it reads as a number), in
 * E.164 within a workspace and mode; several customers may share a number, so the index is not unique.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createIndex('customers_phone')
    .on('customers')
    .columns(['workspace_id', 'mode', 'phone', 'id'])
    .execute();
}
