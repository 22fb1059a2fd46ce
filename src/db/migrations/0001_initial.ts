import { type Kysely, sql } from 'kysely';
import { columnTypes, type DialectName } from '../dialect.js';

/** Frozen: once released, a migration is never edited; changes go in a new file. */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  const id = sql.raw(t.id);
  const instant = sql.raw(t.instant);
  const money = sql.raw(t.money);

  await db.schema
    .createTable('workspaces')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('default_currency', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('subscription_plan', 'text', (c) => c.notNull())
    .addColumn('created_at', instant, (c) => c.notNull())
    .addColumn('updated_at', instant, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', instant, (c) => c.notNull())
    .addColumn('revoked_at', instant)
    .execute();
  await db.schema.createIndex('api_keys_workspace').on('api_keys').columns(['workspace_id', 'id']).execute();

  await db.schema
    .createTable('customers')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('notes', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', instant, (c) => c.notNull())
    .addColumn('updated_at', instant, (c) => c.notNull())
    .addColumn('archived_at', instant)
    .execute();
  await db.schema
    .createIndex('customers_list')
    .on('customers')
    .columns(['workspace_id', 'mode', 'id'])
    .execute();

  await db.schema
    .createTable('tracks')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('customer_id', id, (c) => c.notNull().references('customers.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('amount', money, (c) => c.notNull())
    .addColumn('balance', money, (c) => c.notNull())
    .addColumn('amount_paid', money, (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('installments', 'integer')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('due_date', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('created_at', instant, (c) => c.notNull())
    .addColumn('updated_at', instant, (c) => c.notNull())
    .addColumn('archived_at', instant)
    .addCheckConstraint('tracks_balance_in_range', sql`balance >= 0 and balance = amount - amount_paid`)
    .execute();
  await db.schema.createIndex('tracks_list').on('tracks').columns(['workspace_id', 'mode', 'id']).execute();
  await db.schema.createIndex('tracks_customer').on('tracks').columns(['customer_id', 'id']).execute();

  await db.schema
    .createTable('payments')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('track_id', id, (c) => c.notNull().references('tracks.id'))
    .addColumn('customer_id', id, (c) => c.notNull().references('customers.id'))
    .addColumn('amount', money, (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('paid_at', instant, (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('created_at', instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('payments_list')
    .on('payments')
    .columns(['workspace_id', 'mode', 'id'])
    .execute();
  await db.schema.createIndex('payments_track').on('payments').columns(['track_id', 'id']).execute();
  await db.schema.createIndex('payments_customer').on('payments').columns(['customer_id', 'id']).execute();
  await db.schema
    .createIndex('payments_reference')
    .on('payments')
    .columns(['workspace_id', 'mode', 'reference'])
    .unique()
    .execute();

  await db.schema
    .createTable('ledger_entries')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('track_id', id)
    .addColumn('customer_id', id)
    .addColumn('amount', money, (c) => c.notNull())
    .addColumn('balance_after', money)
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('occurred_at', instant, (c) => c.notNull())
    .addColumn('refs', 'text', (c) => c.notNull())
    .addColumn('created_at', instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('ledger_list')
    .on('ledger_entries')
    .columns(['workspace_id', 'mode', 'id'])
    .execute();
  await db.schema.createIndex('ledger_track').on('ledger_entries').columns(['track_id', 'id']).execute();
  await db.schema
    .createIndex('ledger_customer')
    .on('ledger_entries')
    .columns(['customer_id', 'id'])
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', instant, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_list').on('events').columns(['workspace_id', 'mode', 'id']).execute();

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', instant, (c) => c.notNull())
    .addColumn('updated_at', instant, (c) => c.notNull())
    .addColumn('disabled_at', instant)
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_list')
    .on('webhook_endpoints')
    .columns(['workspace_id', 'mode', 'id'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', id, (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('event_id', id, (c) => c.notNull().references('events.id'))
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('attempt_number', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('attempted_at', instant, (c) => c.notNull())
    .addColumn('next_attempt_at', instant)
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'id'])
    .execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', instant, (c) => c.notNull())
    .addColumn('locked_until', instant)
    .addColumn('last_error', 'text')
    .addColumn('dedupe_key', 'text', (c) => c.unique())
    .addColumn('created_at', instant, (c) => c.notNull())
    .addColumn('updated_at', instant, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_due').on('jobs').columns(['status', 'run_at']).execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('workspace_id', id, (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('idem_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', instant, (c) => c.notNull())
    .addColumn('expires_at', instant, (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['workspace_id', 'mode', 'idem_key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_expiry')
    .on('idempotency_keys')
    .column('expires_at')
    .execute();

  await db.schema
    .createTable('api_usage')
    .addColumn('workspace_id', id, (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('key_id', id, (c) => c.notNull())
    .addColumn('requests', 'bigint', (c) => c.notNull())
    .addColumn('errors', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('api_usage_pk', ['workspace_id', 'mode', 'day', 'key_id'])
    .execute();
}
