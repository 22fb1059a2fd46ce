import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Distinct statements kept prepared; the least recently used one goes first. */
const MAX_CACHED_STATEMENTS = 500;

/**
 * A SQLite database whose statements are prepared once per text and then reused: Kysely's driver prepares every
 * statement again on every call, and `prepare` was a tenth of a loaded server's CPU. A statement still being
 * iterated (a streamed read) is busy, so the same text gets a fresh one meanwhile.
 */
export function withStatementCache(database: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => database.close(),
    prepare(sql) {
      const cached = cache.get(sql);
      if (cached && !cached.busy) {
        cache.delete(sql);
        cache.set(sql, cached);
        return cached;
      }
      const statement = database.prepare(sql);
      if (!cached) {
        cache.set(sql, statement);
        if (cache.size > MAX_CACHED_STATEMENTS) {
          const oldest = cache.keys().next().value;
          if (oldest !== undefined) cache.delete(oldest);
        }
      }
      return statement;
    },
  };
}
