import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. A customer's ledger entries in one currency in time order (`occurred_at`, then id), for the customer
 * statement: its opening balance is a range of this index and its lines are read in keyset pages along it, so a
 * statement of thousands of lines never reads the customer's other currencies or sorts their rows.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createIndex('ledger_customer_time')
    .on('ledger_entries')
    .columns(['customer_id', 'currency', 'occurred_at', 'id'])
    .execute();
}
