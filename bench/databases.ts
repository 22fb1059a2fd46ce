import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export type DatabaseKind = 'postgres' | 'sqlite';

export interface BenchDatabase {
  kind: DatabaseKind;
  /** DATA_DIR and, for PostgreSQL, DATABASE_URL: what the server, the CLI and the direct run read. */
  env: { DATA_DIR: string; DATABASE_URL?: string };
  drop(): Promise<void>;
}

async function onServer(serverUrl: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: new URL('postgres', serverUrl).toString() });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** An empty database: `name` dropped and created again on PostgreSQL, a temporary directory for SQLite. */
export async function prepareDatabase(
  kind: DatabaseKind,
  pgServerUrl: string,
  name = 'paytrack_bench',
): Promise<BenchDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `paytrack-bench-${kind}-`));
  const removeDir = () => fs.rmSync(dataDir, { recursive: true, force: true });
  if (kind === 'sqlite') return { kind, env: { DATA_DIR: dataDir }, drop: async () => removeDir() };

  const dropStatement = `drop database if exists ${name} with (force)`;
  await onServer(pgServerUrl, [dropStatement, `create database ${name}`]);
  return {
    kind,
    env: { DATA_DIR: dataDir, DATABASE_URL: new URL(name, pgServerUrl).toString() },
    async drop() {
      await onServer(pgServerUrl, [dropStatement]);
      removeDir();
    },
  };
}
