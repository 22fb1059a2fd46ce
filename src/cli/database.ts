import type { Config } from '../config.js';
import { type AppContext, createContext } from '../context.js';
import { type DatabaseHandle, type OpenDatabaseOptions, openDatabase, sqlitePath } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';

export interface OpenedDatabase {
  handle: DatabaseHandle;
  ctx: AppContext;
  /** Migrations applied by this call, oldest first. */
  applied: string[];
}

/** Where the configured database is. */
export function databaseOptions(config: Readonly<Config>): OpenDatabaseOptions {
  return { dataDir: config.dataDir, databaseUrl: config.databaseUrl };
}

/** Opens the configured database and brings its schema up to date; every command starts here. */
export async function openMigrated(config: Readonly<Config>, poolSize?: number): Promise<OpenedDatabase> {
  const handle = openDatabase({ ...databaseOptions(config), ...(poolSize ? { poolSize } : {}) });
  try {
    const applied = await migrateToLatest(handle.db, handle.dialect);
    const ctx: AppContext = createContext({ config, db: handle.db, dialect: handle.dialect });
    return { handle, ctx, applied };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Runs one short command against the database and closes it, whatever happens. */
export async function withDatabase<T>(
  config: Readonly<Config>,
  work: (opened: OpenedDatabase) => Promise<T>,
) {
  const opened = await openMigrated(config, 2);
  try {
    return await work(opened);
  } finally {
    await opened.handle.close();
  }
}

/** Where the data lives, for messages; never prints a password. */
export function describeDatabase(config: Readonly<Config>): string {
  if (!config.databaseUrl) return `SQLite at ${sqlitePath(config.dataDir)}`;
  const url = new URL(config.databaseUrl);
  return `PostgreSQL at ${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`;
}
