import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'kysely';
import type { DialectName } from './dialect.js';
import { GroupCommit } from './group-commit.js';
import type { Db, Trx } from './schema.js';

/**
 * Work a request wants done in the same transaction as its change, just before it commits: the HTTP layer
 * stores the idempotent response there, so a key holds either nothing or the whole response, and the audit
 * entry of the change.
 */
export interface CommitHook {
  beforeCommit(trx: Trx, result: unknown): Promise<void>;
}

const commitHooks = new AsyncLocalStorage<readonly CommitHook[]>();

/** Runs `work` (a request's handler) with `hook`, after any it already has, on the first unit of work it opens. */
export function withCommitHook<T>(hook: CommitHook, work: () => Promise<T>): Promise<T> {
  return commitHooks.run([...(commitHooks.getStore() ?? []), hook], work);
}

/** Runs `work` outside the request's commit hook: background work a request runs before its own change. */
export function withoutCommitHook<T>(work: () => Promise<T>): Promise<T> {
  return commitHooks.exit(work);
}

const groups = new WeakMap<Db, GroupCommit>();

function groupCommit(db: Db): GroupCommit {
  let group = groups.get(db);
  if (!group) {
    group = new GroupCommit(db);
    groups.set(db, group);
  }
  return group;
}

/**
 * The one way services open a transaction. Everything inside uses `trx`, never the root handle (on SQLite
 * that would wait on the connection the transaction holds). The result of a request's first unit of work is
 * its response: the request's commit hook, if any, runs with it before the commit. On SQLite units of work
 * that arrive together share one durable commit, each in its own savepoint (`GroupCommit`); the promise
 * settles once the commit is durable either way.
 */
export function inTransaction<T>(
  ctx: { db: Db; dialect: DialectName },
  work: (trx: Trx) => Promise<T>,
): Promise<T> {
  const hooks = commitHooks.getStore();
  const unit = hooks
    ? async (trx: Trx) => {
        const result = await commitHooks.exit(() => work(trx));
        for (const hook of hooks) await hook.beforeCommit(trx, result);
        return result;
      }
    : work;
  return ctx.dialect === 'sqlite' ? groupCommit(ctx.db).run(unit) : ctx.db.transaction().execute(unit);
}

/**
 * Reads that must see one moment of the database (a report adding figures from several tables), read only:
 * a repeatable read transaction on PostgreSQL; on SQLite a deferred one, which reads one snapshot without
 * taking the write lock.
 */
export function inSnapshot<T>(
  ctx: { db: Db; dialect: DialectName },
  work: (trx: Trx) => Promise<T>,
): Promise<T> {
  const transaction = ctx.db.transaction().setAccessMode('read only');
  if (ctx.dialect !== 'postgres') return transaction.execute(work);
  return transaction.setIsolationLevel('repeatable read').execute(async (trx) => {
    // Reports read small parts of large tables through partial indexes whose conditions PostgreSQL cannot
    // estimate: it took one for 100,000 rows and started parallel workers, 8 ms, to read none in 0.1 ms.
    await sql`set local max_parallel_workers_per_gather = 0`.execute(trx);
    return work(trx);
  });
}
