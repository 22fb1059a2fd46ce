import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Distinct statements kept prepared; past it, the least recently used half goes. */
const MAX_CACHED_STATEMENTS = 500;

interface Cached {
  statement: BetterSqlite3.Statement;
  /** When it was last handed out, in calls to `prepare`. */
  usedAt: number;
}

/**
 * A SQLite database whose statements are prepared once per text and then reused: Kysely's driver prepares every
 * statement again on every call, and `prepare` was a tenth of a loaded server's CPU. A statement still being
 * iterated (a streamed read) is busy, so the same text gets a fresh one meanwhile.
 *
 * A hit only notes when it was used: moving it to the end of the map (delete and set again) hashed its text
 * twice more, on every statement of every request. The rare eviction sorts instead.
 */
export function withStatementCache(database: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, Cached>();
  let calls = 0;
  return {
    close: () => database.close(),
    prepare(sql) {
      calls += 1;
      const cached = cache.get(sql);
      if (cached && !cached.statement.busy) {
        cached.usedAt = calls;
        return cached.statement;
      }
      const statement = database.prepare(sql);
      if (!cached) {
        if (cache.size >= MAX_CACHED_STATEMENTS) evictLeastUsedHalf(cache);
        cache.set(sql, { statement, usedAt: calls });
      }
      return statement;
    },
  };
}

function evictLeastUsedHalf(cache: Map<string, Cached>): void {
  const byUse = [...cache].sort(([, a], [, b]) => a.usedAt - b.usedAt);
  for (const [sql] of byUse.slice(0, Math.floor(byUse.length / 2))) cache.delete(sql);
}
