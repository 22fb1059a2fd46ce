import type { Kysely } from 'kysely';
import { referenceKey } from '../../lib/text.js';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. Payment references are unique in their normalised form (`reference_key`), and events keep the
 * changed fields' old values (`previous_attributes`).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable('payments').addColumn('reference_key', 'text').execute();
  const referenced = await db
    .selectFrom('payments')
    .select(['id', 'workspace_id', 'mode', 'reference'])
    .where('reference', 'is not', null)
    .orderBy('id')
    .execute();
  // References accepted before that differ only in form: the first keeps the key, the later ones none.
  const taken = new Set<string>();
  for (const payment of referenced) {
    const key = referenceKey(payment.reference);
    const scoped = `${payment.workspace_id}|${payment.mode}|${key}`;
    if (key === '' || taken.has(scoped)) continue;
    taken.add(scoped);
    await db.updateTable('payments').set({ reference_key: key }).where('id', '=', payment.id).execute();
  }
  await db.schema.dropIndex('payments_reference').execute();
  await db.schema
    .createIndex('payments_reference_key')
    .on('payments')
    .columns(['workspace_id', 'mode', 'reference_key'])
    .unique()
    .execute();

  await db.schema.alterTable('events').addColumn('previous_attributes', 'text').execute();
  await db.schema
    .createIndex('events_type')
    .on('events')
    .columns(['workspace_id', 'mode', 'type', 'id'])
    .execute();
}
