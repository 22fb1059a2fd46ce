import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { DialectName } from './dialect.js';
import type { Db } from './schema.js';

/** Migration files: `NNNN_name.ts` (`.js` once built), frozen once released; a new one goes at the end. */
const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
const MIGRATION_FILE = /^(\d{4}_[a-z0-9_]+)\.(js|ts)$/;

interface MigrationModule {
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
  up(db: Kysely<any>, dialect: DialectName): Promise<void>;
}

let loaded: Promise<Map<string, MigrationModule>> | undefined;

/** Every migration in the folder, by name, in order; read once per process. */
function migrationModules(): Promise<Map<string, MigrationModule>> {
  loaded ??= (async () => {
    const names = (await fs.readdir(MIGRATIONS_DIR))
      .map((file) => MIGRATION_FILE.exec(file))
      .filter((match): match is RegExpExecArray => match !== null)
      .sort((a, b) => (a[1] ?? '').localeCompare(b[1] ?? ''));
    const modules = new Map<string, MigrationModule>();
    for (const match of names) {
      const name = match[1] as string;
      modules.set(
        name,
        (await import(pathToFileURL(path.join(MIGRATIONS_DIR, match[0])).href)) as MigrationModule,
      );
    }
    return modules;
  })();
  return loaded;
}

async function migrations(dialect: DialectName): Promise<Record<string, Migration>> {
  const modules = await migrationModules();
  return Object.fromEntries(
    [...modules].map(([name, module]) => [name, { up: (db) => module.up(db, dialect) }]),
  );
}

class FolderProvider implements MigrationProvider {
  constructor(private readonly dialect: DialectName) {}
  getMigrations(): Promise<Record<string, Migration>> {
    return migrations(this.dialect);
  }
}

/** Whether a paytrack schema was ever created in this database; a database that cannot be reached throws. */
export async function hasMigrated(db: Db, dialect: DialectName): Promise<boolean> {
  const { rows } =
    dialect === 'postgres'
      ? await sql<{ found: unknown }>`select to_regclass('kysely_migration') as found`.execute(db)
      : await sql<{
          found: unknown;
        }>`select name as found from sqlite_master where type = 'table' and name = 'kysely_migration'`.execute(
          db,
        );
  return rows[0]?.found !== undefined && rows[0]?.found !== null;
}

/** Names Kysely recorded as applied; null while its table does not exist yet. */
async function appliedMigrations(db: Db, dialect: DialectName): Promise<Set<string> | null> {
  if (!(await hasMigrated(db, dialect))) return null;
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  return new Set(rows.map((row) => row.name));
}

export async function migrateToLatest(db: Db, dialect: DialectName): Promise<string[]> {
  // Kysely's Migrator first introspects every table of every schema, which fails when another schema is
  // dropped meanwhile (parallel test runs) and is slow on a large catalogue: skip it when nothing is pending.
  const applied = await appliedMigrations(db, dialect);
  const all = await migrationModules();
  if (applied && [...all.keys()].every((name) => applied.has(name))) return [];
  // Kysely looks for its bookkeeping tables in every schema; pin them to ours (PostgreSQL search_path).
  const schema =
    dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db,
    provider: new FolderProvider(dialect),
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    // On PostgreSQL that introspection fails in several ways (missing schema, table, column) when another
    // schema is dropped meanwhile; a failed attempt applied nothing (DDL is transactional there), so retry.
    if (dialect !== 'postgres' || attempt >= 3) throw error;
  }
}
