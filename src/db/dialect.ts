import {
  CompiledQuery,
  type DatabaseConnection,
  PostgresAdapter,
  type SelectQueryBuilder,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  sql,
  type TransactionSettings,
} from 'kysely';
import type { WriteTurns } from './write-turns.js';

/** The only place that knows the two databases differ. */
export type DialectName = 'sqlite' | 'postgres';

export interface ColumnTypes {
  /** Identifier columns compare byte by byte, so ids sort the same on both databases. */
  id: string;
  /** Points in time: `timestamptz` on PostgreSQL, ISO 8601 text on SQLite. */
  instant: string;
  money: string;
}

export function columnTypes(dialect: DialectName): ColumnTypes {
  return dialect === 'postgres'
    ? { id: 'text collate "C"', instant: 'timestamptz', money: 'bigint' }
    : { id: 'text', instant: 'text', money: 'integer' };
}

/** Which database a handle or transaction talks to, for the few statements written once for each. */
export function dialectOf(db: { getExecutor(): { readonly adapter: unknown } }): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** Row lock on PostgreSQL; SQLite's write transactions already lock the whole database. */
// biome-ignore lint/suspicious/noExplicitAny: works on a select of any table
export function forUpdate<QB extends SelectQueryBuilder<any, any, any>>(dialect: DialectName, qb: QB): QB {
  return dialect === 'postgres' ? (qb.forUpdate() as QB) : qb;
}

/** Claiming queued rows: PostgreSQL skips rows other workers hold. */
// biome-ignore lint/suspicious/noExplicitAny: works on a select of any table
export function forUpdateSkipLocked<QB extends SelectQueryBuilder<any, any, any>>(
  dialect: DialectName,
  qb: QB,
): QB {
  return dialect === 'postgres' ? (qb.forUpdate().skipLocked() as QB) : qb;
}

/**
 * The UTC quarter-hour an instant column falls in, as `YYYY-MM-DDTHH:MM` text (minutes 00, 15, 30 or 45). Every
 * time zone's offset is a whole number of quarter hours, so grouping by it and then by local day, week or month
 * in code is exact in any zone.
 */
export function quarterHourOf(dialect: DialectName, column: string) {
  const ref = sql.ref(column);
  return dialect === 'postgres'
    ? sql<string>`to_char(date_trunc('hour', ${ref} at time zone 'UTC') + (floor(extract(minute from ${ref} at time zone 'UTC') / 15) * interval '15 minutes'), 'YYYY-MM-DD"T"HH24:MI')`
    : sql<string>`substr(${ref}, 1, 14) || substr('00153045', (cast(substr(${ref}, 15, 2) as integer) / 15) * 2 + 1, 2)`;
}

export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** How long SQLite work waits for another connection's write lock before it fails with SQLITE_BUSY. */
export const SQLITE_LOCK_WAIT_MS = 10_000;

const isBusy = (error: unknown) =>
  String((error as { code?: unknown } | null)?.code ?? '').startsWith('SQLITE_BUSY');

/**
 * SQLite transactions start with BEGIN IMMEDIATE: a deferred transaction that reads and then writes
 * fails at once with SQLITE_BUSY when another process (the CLI, a worker) wrote in between. A read-only
 * transaction begins deferred: it reads one WAL snapshot and neither waits for writers nor holds them up.
 *
 * While another connection (the worker thread, the CLI) holds the write lock, SQLite's own wait (busy_timeout)
 * sleeps on this thread, up to 100 ms at a time, and every request the thread serves stops with it. So BEGIN
 * IMMEDIATE is tried without that wait, and tried again after yielding to the event loop, until the same limit.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #turns: WriteTurns | undefined;

  constructor(config: SqliteDialectConfig, turns: WriteTurns | undefined) {
    super(config);
    this.#turns = turns;
  }

  override async beginTransaction(
    connection: DatabaseConnection,
    settings?: TransactionSettings,
  ): Promise<void> {
    const run = (text: string) => connection.executeQuery(CompiledQuery.raw(text));
    if (settings?.accessMode === 'read only') {
      await run('begin deferred');
      return;
    }
    await run('pragma busy_timeout = 0');
    let waiting = false;
    try {
      const deadline = Date.now() + SQLITE_LOCK_WAIT_MS;
      for (let tries = 1; ; tries++) {
        try {
          await run('begin immediate');
          return;
        } catch (error) {
          if (!isBusy(error) || Date.now() >= deadline) throw error;
        }
        if (!waiting && this.#turns?.asking) {
          waiting = true;
          this.#turns.waiting();
        }
        await new Promise((resolve) => (tries < 10 ? setImmediate(resolve) : setTimeout(resolve, 1)));
      }
    } finally {
      if (waiting) this.#turns?.doneWaiting();
      await run(`pragma busy_timeout = ${SQLITE_LOCK_WAIT_MS}`);
    }
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #turns: WriteTurns | undefined;

  /** `turns`: shared with the other threads of this process that write to the same file (`WriteTurns`). */
  constructor(config: SqliteDialectConfig, turns?: WriteTurns) {
    super(config);
    this.#config = config;
    this.#turns = turns;
  }

  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver(this.#config, this.#turns);
  }
}

/** Case-insensitive "contains" on a text column, with the search text's wildcards escaped. */
export function containsText(dialect: DialectName, column: string, text: string) {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<boolean>`${sql.ref(column)} ${sql.raw(dialect === 'postgres' ? 'ilike' : 'like')} ${pattern} escape '\\'`;
}

/**
 * The condition of `inTenant` that filters rows but never picks the index, for a query narrowed by a more
 * selective column (a plan, a schedule) with its own index. SQLite plans without statistics and would take an
 * index led by the tenant (two equalities) over one on the narrower column (one equality), then read every row of
 * the tenant; its unary `+` keeps a term out of index selection. PostgreSQL chooses from its statistics.
 */
export function inTenantFilterOnly(
  dialect: DialectName,
  tenant: { workspaceId: string; mode: string },
  /** The table (or its alias) the columns are of, in a query that joins others with the same columns. */
  table?: string,
) {
  const workspaceId = table ? sql.ref(`${table}.workspace_id`) : sql.raw('workspace_id');
  const mode = table ? sql.ref(`${table}.mode`) : sql.raw('mode');
  return dialect === 'postgres'
    ? sql<boolean>`(${workspaceId} = ${tenant.workspaceId} and ${mode} = ${tenant.mode})`
    : sql<boolean>`(+${workspaceId} = ${tenant.workspaceId} and +${mode} = ${tenant.mode})`;
}

/**
 * One string value of a JSON object kept as text (a ledger entry's `refs`), or null when the key is absent: to join
 * on an id the object holds.
 */
export function jsonTextOf(dialect: DialectName, column: string, key: string) {
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(key)) throw new Error(`not a plain JSON key: ${key}`);
  return dialect === 'postgres'
    ? sql<string | null>`(${sql.ref(column)}::json ->> ${sql.lit(key)})`
    : sql<string | null>`json_extract(${sql.ref(column)}, ${sql.lit(`$.${key}`)})`;
}

/**
 * The tenant's condition written as expressions (`workspace_id || ''`), so that no index led by the tenant is picked
 * for it, in either database: for a read whose own partial index is not led by the tenant and holds few rows of
 * any tenant (obligations past their overdue time that the sweep has not yet marked). SQLite's sampled statistics
 * rate a tenant-and-status index as narrow as that partial index and walk every open obligation of the tenant.
 */
export function inTenantByExpression(tenant: { workspaceId: string; mode: string }) {
  return sql<boolean>`(workspace_id || '' = ${tenant.workspaceId} and mode || '' = ${tenant.mode})`;
}
