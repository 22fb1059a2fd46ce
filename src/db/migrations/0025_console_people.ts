import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. The people who run a business in the console: each person once (by e-mail) with a password hash, their
 * role in each workspace they belong to, one-time links to set a password, sessions (kept server-side, by the
 * hash of the cookie's token), and failed sign-ins per account (the rate limit).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('email', 'text', (column) => column.notNull().unique())
    .addColumn('name', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createTable('memberships')
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('workspace_id', 'text', (column) => column.notNull())
    .addColumn('role', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['user_id', 'workspace_id'])
    .execute();
  await db.schema
    .createTable('password_tokens')
    .addColumn('token_hash', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('workspace_id', 'text', (column) => column.notNull())
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('last_seen_at', 'text', (column) => column.notNull())
    .addColumn('ended_at', 'text')
    .execute();
  await db.schema
    .createTable('sign_in_failures')
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('failed_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('sign_in_failures_email')
    .on('sign_in_failures')
    .columns(['email', 'failed_at'])
    .execute();
}
