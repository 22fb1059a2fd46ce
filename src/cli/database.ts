import fs from 'node:fs';
import { parse } from 'pg-connection-string';
import { createContext } from '../assembly.js';
import type { Config } from '../config.js';
import type { AppContext } from '../context.js';
import { type DatabaseHandle, type OpenDatabaseOptions, openDatabase, sqlitePath } from '../db/database.js';
import { hasMigrated, migrateToLatest } from '../db/migrate.js';
import type { WriteTurns } from '../db/write-turns.js';
import { SecretKeyError } from '../lib/secret-box.js';
import { checkSealedMessageCredentials } from '../modules/messages/settings.service.js';
import { checkSealedSecrets } from '../modules/providers/providers.service.js';
import { CommandError } from './io.js';

export interface OpenedDatabase {
  handle: DatabaseHandle;
  ctx: AppContext;
  /** Migrations applied by this call, oldest first. */
  applied: string[];
}

export interface OpenOptions {
  /**
   * May start a database where there is none (`serve`, `migrate`, `workspace create`); every other command
   * refuses, so one run in the wrong folder does not leave an empty database behind.
   */
  create: boolean;
  poolSize?: number;
  /** SQLite: the embedded worker's thread checkpoints the log (`OpenDatabaseOptions.checkpointElsewhere`). */
  checkpointElsewhere?: boolean;
  /** SQLite: turns at the write lock with the embedded worker's thread (`OpenDatabaseOptions.writeTurns`). */
  writeTurns?: WriteTurns;
  /**
   * Opens a stored provider key first, so that a process about to use them (`serve`, `worker`, `provider set`)
   * refuses to start without PAYTRACK_SECRET_KEY, or with another key, instead of failing at the first charge.
   */
  checkSecrets?: boolean;
}

/** Where the configured database is. */
export function databaseOptions(config: Readonly<Config>): OpenDatabaseOptions {
  return { dataDir: config.dataDir, databaseUrl: config.databaseUrl };
}

function noDatabase(config: Readonly<Config>): CommandError {
  return new CommandError(
    `no paytrack database in ${describeDatabase(config)}. Run 'paytrack migrate' (or 'paytrack serve') to create ` +
      'one there, or point DATA_DIR or DATABASE_URL at the one you meant.',
  );
}

/** Opens the configured database and brings its schema up to date; every command starts here. */
export async function openMigrated(config: Readonly<Config>, options: OpenOptions): Promise<OpenedDatabase> {
  if (!options.create && !config.databaseUrl && !fs.existsSync(sqlitePath(config.dataDir))) {
    throw noDatabase(config);
  }
  const handle = openDatabase({
    ...databaseOptions(config),
    ...(options.poolSize ? { poolSize: options.poolSize } : {}),
    ...(options.checkpointElsewhere ? { checkpointElsewhere: true } : {}),
    ...(options.writeTurns ? { writeTurns: options.writeTurns } : {}),
  });
  try {
    if (!options.create && !(await hasMigrated(handle.db, handle.dialect))) throw noDatabase(config);
    const applied = await migrateToLatest(handle.db, handle.dialect);
    const ctx: AppContext = createContext({ config, db: handle.db, dialect: handle.dialect });
    if (options.checkSecrets) {
      await checkSealedSecrets(handle.db, ctx.secrets);
      await checkSealedMessageCredentials(handle.db, ctx.secrets);
    }
    return { handle, ctx, applied };
  } catch (error) {
    await handle.close().catch(() => undefined);
    if (error instanceof CommandError) throw error;
    if (error instanceof SecretKeyError) throw new CommandError(error.message);
    const message = error instanceof Error ? error.message : String(error);
    throw new CommandError(`cannot open ${describeDatabase(config)}: ${message}`);
  }
}

/**
 * Runs one short command against the database and closes it, whatever happens. A failure says which
 * database the command opened.
 */
export async function withDatabase<T>(
  config: Readonly<Config>,
  work: (opened: OpenedDatabase) => Promise<T>,
  options: { create: boolean; checkSecrets?: boolean } = { create: false },
) {
  const opened = await openMigrated(config, { ...options, poolSize: 2 });
  try {
    return await work(opened);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new CommandError(`${message} (${describeDatabase(config)})`);
  } finally {
    await opened.handle.close();
  }
}

/** Where the data lives, for messages; never prints a password. */
export function describeDatabase(config: Readonly<Config>): string {
  if (!config.databaseUrl) return `SQLite at ${sqlitePath(config.dataDir)}`;
  // Read as the driver reads it: `postgres://user@/db?host=/run/postgresql` is a socket, not a broken URL.
  const { host, port, database } = parse(config.databaseUrl);
  if (host?.startsWith('/')) return `PostgreSQL at the socket in ${host}, database ${database ?? ''}`;
  return `PostgreSQL at ${host || 'localhost'}${port ? `:${port}` : ''}/${database ?? ''}`;
}
