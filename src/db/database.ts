import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { toSafeInteger } from '../lib/money.js';
import { type DialectName, ImmediateSqliteDialect, SQLITE_LOCK_WAIT_MS } from './dialect.js';
import { PreparingClient } from './prepared-statements.js';
import type { Database, Db } from './schema.js';
import { withStatementCache } from './statement-cache.js';
import { setWriteTurns, type WriteTurns } from './write-turns.js';

export interface DatabaseHandle {
  db: Db;
  dialect: DialectName;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  dataDir: string;
  databaseUrl: string | undefined;
  /** PostgreSQL only: run in this schema (tests use one schema per run). */
  schema?: string;
  poolSize?: number;
  /**
   * SQLite only: another connection checkpoints the log (`checkpointLog`, on the embedded worker's thread), so
   * this one's commits never do; it still does past `WAL_PAGES_BEFORE_CHECKPOINT_ANYWAY` pages.
   */
  checkpointElsewhere?: boolean;
  /** SQLite only: turns at the write lock with the other threads of this process that open the same file. */
  writeTurns?: WriteTurns;
}

const PG_INT8 = 20;
const PG_NUMERIC = 1700;
const PG_TIMESTAMPTZ = 1184;
const PG_TIMESTAMP = 1114;

/** int8 and sums come back as safe integers, instants as ISO 8601 strings: the same values SQLite gives. */
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === PG_INT8 || oid === PG_NUMERIC)
      return (value: string) => toSafeInteger(value, 'database integer');
    if (oid === PG_TIMESTAMPTZ || oid === PG_TIMESTAMP)
      return (value: string) => new Date(value).toISOString();
    return pg.types.getTypeParser(oid, format);
  },
};

const WAL_PAGES_BEFORE_CHECKPOINT = 10_000;
/**
 * With checkpoints on another connection, this one checkpoints only if the log grew this far anyway (400 MB):
 * that connection stopped, say. Checkpoints of 10,000 pages in a payment's commit were the longest waits of
 * payments sent at a steady 250 a second.
 */
const WAL_PAGES_BEFORE_CHECKPOINT_ANYWAY = 100_000;

/**
 * Copies what the SQLite log holds back into the database file without waiting for, or holding up, anyone
 * (PASSIVE): run now and then by the embedded worker, so the server's commits do not.
 */
export async function checkpointLog(db: Kysely<Database>): Promise<void> {
  await sql`pragma wal_checkpoint(PASSIVE)`.execute(db);
}

/** How often SQLite's query planner statistics are brought up to date. */
const STATISTICS_EVERY_MS = 60 * 60 * 1000;

export function sqlitePath(dataDir: string): string {
  return path.join(dataDir, 'paytrack.db');
}

export function openDatabase(options: OpenDatabaseOptions): DatabaseHandle {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      Client: PreparingClient,
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 16,
      // Connections stay open once made. pg closes one idle for 10 s by default: after a quiet spell every
      // connection was made again, each with its statements prepared again, and the first 5 s of payments sent
      // at a steady 250/s after 25 s without requests waited p50 143-1,442 ms, p99 745-1,616 ms; kept open,
      // p50 11-50 ms, p99 310-473 ms (three runs each, alternated). An idle connection does not keep a
      // command's process alive.
      idleTimeoutMillis: 0,
      allowExitOnIdle: true,
      types: pgTypes,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    // A connection PostgreSQL ends while it waits in the pool (a restart, an administrator, a session timeout)
    // is taken out of it and reported here; unheard, that report ended the process. The next query opens another.
    pool.on('error', (error) =>
      process.stderr.write(
        `paytrack: PostgreSQL ended an idle connection (${error.message}); the next query opens another\n`,
      ),
    );
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }

  fs.mkdirSync(options.dataDir, { recursive: true });
  const sqlite = new BetterSqlite3(sqlitePath(options.dataDir));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma(`busy_timeout = ${SQLITE_LOCK_WAIT_MS}`);
  sqlite.pragma('foreign_keys = ON');
  // A checkpoint runs in the commit that takes the log past this many pages, on the request path. Every 1,000
  // (the default), payments ran at 1,048/s, mean of five scratch runs of 32 connections (825 to 1,250); every
  // 10,000 (a log of up to 40 MB), at 1,222/s (1,089 to 1,288): a page that changes often is copied back once
  // per checkpoint, not once per 1,000 pages.
  sqlite.pragma(
    `wal_autocheckpoint = ${options.checkpointElsewhere ? WAL_PAGES_BEFORE_CHECKPOINT_ANYWAY : WAL_PAGES_BEFORE_CHECKPOINT}`,
  );
  // Group commit gives each payment a savepoint, and SQLite keeps the pages a savepoint may have to restore in a
  // sub-journal, a temporary file once past 64 KiB. Counted with strace, a payment made 71 file writes; with the
  // sub-journal in memory, 13. Payments ran at 1,662/s, mean of three interleaved scratch runs of 32 connections
  // (1,492 to 1,756), against 1,305/s (1,243 to 1,369). Reports' sorts are in memory too: an export of 1,000,000
  // payments peaked 34 MB above idle.
  sqlite.pragma('temp_store = MEMORY');
  // Without statistics SQLite takes `workspace_id = ? and mode = ?` for a selective condition and walks all of a
  // workspace's payments in id order to find one plan's ten: 1,738 ms at 600,000 payments. With them it takes the
  // plan's index: 0.4 ms. `optimize` analyses the tables whose statistics are missing or stale, each from a sample
  // (`analysis_limit`): 721 ms at open on that database, and again every hour as the tables grow.
  sqlite.pragma('analysis_limit = 1000');
  sqlite.pragma('optimize = 0x10002');
  const statistics = setInterval(() => sqlite.pragma('optimize'), STATISTICS_EVERY_MS);
  statistics.unref();
  const db = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }, options.writeTurns),
  });
  if (options.writeTurns) setWriteTurns(db, options.writeTurns);
  return {
    db,
    dialect: 'sqlite',
    close: () => {
      clearInterval(statistics);
      return db.destroy();
    },
  };
}
