import { type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { DialectName } from './dialect.js';
import * as initial from './migrations/0001_initial.js';
import type { Db } from './schema.js';

/** Every migration in order. Files are frozen once released; add new ones at the end. */
function migrations(dialect: DialectName): Record<string, Migration> {
  return {
    '0001_initial': { up: (db) => initial.up(db, dialect) },
  };
}

class StaticProvider implements MigrationProvider {
  constructor(private readonly dialect: DialectName) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations(this.dialect);
  }
}

/** Names Kysely recorded as applied; null while its table does not exist yet. */
async function appliedMigrations(db: Db): Promise<Set<string> | null> {
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    return new Set(rows.map((row) => row.name));
  } catch {
    return null;
  }
}

export async function migrateToLatest(db: Db, dialect: DialectName): Promise<string[]> {
  // Kysely's Migrator first introspects every table of every schema, which fails when another schema is
  // dropped meanwhile (parallel test runs) and is slow on a large catalogue: skip it when nothing is pending.
  const applied = await appliedMigrations(db);
  if (applied && Object.keys(migrations(dialect)).every((name) => applied.has(name))) return [];
  // Kysely looks for its bookkeeping tables in every schema; pin them to ours (PostgreSQL search_path).
  const schema =
    dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db,
    provider: new StaticProvider(dialect),
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
