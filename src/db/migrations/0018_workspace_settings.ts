import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. What a workspace says of its business to the people it collects from: the country its local phone
 * numbers are read in (ISO 3166-1 alpha-2), how customers reach it, and the colour of its payer pages.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable('workspaces').addColumn('country', 'text').execute();
  await db.schema.alterTable('workspaces').addColumn('support_email', 'text').execute();
  await db.schema.alterTable('workspaces').addColumn('support_phone', 'text').execute();
  await db.schema.alterTable('workspaces').addColumn('brand_color', 'text').execute();
}
