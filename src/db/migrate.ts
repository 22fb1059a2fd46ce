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

export async function migrateToLatest(db: Db, dialect: DialectName): Promise<string[]> {
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
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
