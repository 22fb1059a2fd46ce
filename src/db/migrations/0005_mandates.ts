import { type Kysely, sql } from 'kysely';
import { columnTypes, type DialectName } from '../dialect.js';

/** Frozen. Payment mandates with their consent, and each workspace's payment provider settings. */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  const id = sql.raw(t.id);
  const instant = sql.raw(t.instant);

  await db.schema
    .createTable('provider_settings')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('approved', 'integer', (c) => c.notNull())
    .addColumn('notification_secret', 'text', (c) => c.notNull())
    .addColumn('created_at', instant, (c) => c.notNull())
    .addColumn('updated_at', instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('provider_settings_provider')
    .on('provider_settings')
    .columns(['workspace_id', 'mode', 'provider'])
    .unique()
    .execute();

  await db.schema
    .createTable('mandates')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('payer_type', 'text', (c) => c.notNull())
    .addColumn('payer_id', id, (c) => c.notNull().references('customers.id'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('schedule_id', id, (c) => c.references('schedules.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('consent_token_hash', 'text', (c) => c.notNull())
    .addColumn('form_token_hash', 'text')
    .addColumn('consent_expires_at', instant, (c) => c.notNull())
    .addColumn('consented_at', instant)
    .addColumn('consent', 'text')
    .addColumn('activated_at', instant)
    .addColumn('revoked_at', instant)
    .addColumn('revocation_reason', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('created_at', instant, (c) => c.notNull())
    .addColumn('updated_at', instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('mandates_list')
    .on('mandates')
    .columns(['workspace_id', 'mode', 'id'])
    .execute();
  await db.schema.createIndex('mandates_schedule').on('mandates').columns(['schedule_id', 'id']).execute();
  await db.schema
    .createIndex('mandates_consent_token')
    .on('mandates')
    .column('consent_token_hash')
    .unique()
    .execute();
  // Consent not given within 24 hours: the expiry sweep's work.
  await db.schema
    .createIndex('mandates_awaiting_consent')
    .on('mandates')
    .column('consent_expires_at')
    .where(sql.ref('status'), '=', 'pending')
    .execute();
}
