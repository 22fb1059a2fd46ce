import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. The audit trail: every change a person (console) or a key (API) made, with who, what, the fields that
 * changed and why. The database itself refuses to update or delete an entry.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('audit_entries')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('workspace_id', 'text', (column) => column.notNull())
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('actor_type', 'text', (column) => column.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('action', 'text', (column) => column.notNull())
    .addColumn('record_type', 'text')
    .addColumn('record_id', 'text')
    .addColumn('changes', 'text', (column) => column.notNull())
    .addColumn('reason', 'text')
    .addColumn('request_id', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
  for (const column of ['actor_id', 'record_id'] as const) {
    await db.schema
      .createIndex(`audit_entries_${column}`)
      .on('audit_entries')
      .columns(['workspace_id', 'mode', column, 'id'])
      .execute();
  }
  await db.schema
    .createIndex('audit_entries_tenant')
    .on('audit_entries')
    .columns(['workspace_id', 'mode', 'id'])
    .execute();
  if (dialect === 'postgres') {
    await sql`create function audit_entries_append_only() returns trigger language plpgsql as $$
      begin raise exception 'audit entries are append-only'; end $$`.execute(db);
    await sql`create trigger audit_entries_append_only before update or delete on audit_entries
      for each row execute function audit_entries_append_only()`.execute(db);
  } else {
    for (const event of ['update', 'delete']) {
      await sql
        .raw(`create trigger audit_entries_no_${event} before ${event} on audit_entries
          begin select raise(abort, 'audit entries are append-only'); end`)
        .execute(db);
    }
  }
}
