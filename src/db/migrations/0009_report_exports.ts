import { type Kysely, sql } from 'kysely';
import { columnTypes, type DialectName } from '../dialect.js';

/**
 * Frozen. Report exports: one row per `POST /reports/export`, the file it wrote (`storage_key`), its progress,
 * and when its download link expires and its file was removed. `export_signing` keeps the key that signs
 * download links when `EXPORT_SIGNING_SECRET` is not set (one row, made the first time a link is signed).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  const id = sql.raw(t.id);
  const instant = sql.raw(t.instant);

  await db.schema
    .createTable('report_exports')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('workspace_id', id, (c) => c.notNull().references('workspaces.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('report', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('range_from', instant)
    .addColumn('range_to', instant)
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('rows_written', 'integer', (c) => c.notNull())
    // Null while not known: before the run starts, and until the end for reports counted as they are written.
    .addColumn('rows_total', 'integer')
    .addColumn('storage_key', 'text')
    .addColumn('error', 'text')
    // The download link works until then; the clean-up sweep removes the file after.
    .addColumn('expires_at', instant)
    .addColumn('file_removed_at', instant)
    .addColumn('created_at', instant, (c) => c.notNull())
    .addColumn('updated_at', instant, (c) => c.notNull())
    .addColumn('completed_at', instant)
    .execute();
  await db.schema
    .createIndex('report_exports_list')
    .on('report_exports')
    .columns(['workspace_id', 'mode', 'id'])
    .execute();
  await db.schema
    .createIndex('report_exports_expiring')
    .on('report_exports')
    .columns(['mode', 'expires_at'])
    .where(sql.ref('file_removed_at'), 'is', null)
    .execute();

  await db.schema
    .createTable('export_signing')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', instant, (c) => c.notNull())
    .execute();
}
