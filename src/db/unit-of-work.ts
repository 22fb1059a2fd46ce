import { type Compilable, CompiledQuery, sql } from 'kysely';
import type { DialectName } from './dialect.js';
import { GroupCommit } from './group-commit.js';
import { shiftPlaceholders } from './inline-parameters.js';
import type { Db, DbOrTrx, Trx } from './schema.js';
import { writeTurnsOf } from './write-turns.js';

/**
 * Work a request wants done in the same transaction as its change, just before it commits: the HTTP layer
 * stores the idempotent response there, so a key holds either nothing or the whole response, and the audit
 * entry of the change.
 */
export interface CommitHook {
  /**
   * `unsettled`: a text that stands in `result` for one the unit's final statement writes (`FinalStatement`);
   * only a hook that `runsBeforeFinal` gets one, and what it writes must not hold it.
   */
  beforeCommit(trx: Trx, result: unknown, unsettled: string | null): Promise<void>;
  /** It can run before the unit's final statement: what it writes depends on nothing that statement writes. */
  readonly runsBeforeFinal?: boolean;
}

interface RequestHooks {
  hooks: CommitHook[];
  /** A unit of work holding the hooks is open: a unit opened inside it is not the request's own. */
  inUnit: boolean;
}

/**
 * The commit hooks of requests in flight, by the tenant the request acts as (its `AuthContext`, one object per
 * request, which its services get and hand to `inTransaction`). Carried explicitly rather than in an
 * AsyncLocalStorage: on Node 20 one store in use makes every promise of the process run async hooks, which cost a
 * third of the rate of a read.
 */
const requestHooks = new WeakMap<object, RequestHooks>();

/**
 * Runs `work` (a request's handler) with `hook`, after any it already has: the units of work opened for `owner`
 * (the request's tenant) run it before they commit.
 */
export async function withCommitHook<T>(owner: object, hook: CommitHook, work: () => Promise<T>): Promise<T> {
  let entry = requestHooks.get(owner);
  if (!entry) {
    entry = { hooks: [], inUnit: false };
    requestHooks.set(owner, entry);
  }
  entry.hooks.push(hook);
  try {
    return await work();
  } finally {
    entry.hooks.splice(entry.hooks.indexOf(hook), 1);
    if (entry.hooks.length === 0) requestHooks.delete(owner);
  }
}

/** The hooks a unit of work opened for `owner` runs: none inside another unit of the same request. */
function hooksFor(owner: object | null): RequestHooks | undefined {
  const entry = owner ? requestHooks.get(owner) : undefined;
  return entry && !entry.inUnit && entry.hooks.length > 0 ? entry : undefined;
}

/** Runs the unit's `work` with its request's hooks held, so a unit opened inside it does not take them. */
async function holding<T>(request: RequestHooks | undefined, work: () => Promise<T>): Promise<T> {
  if (!request) return work();
  request.inUnit = true;
  try {
    return await work();
  } finally {
    request.inUnit = false;
  }
}

const groups = new WeakMap<Db, GroupCommit>();

function groupCommit(db: Db): GroupCommit {
  let group = groups.get(db);
  if (!group) {
    group = new GroupCommit(db, writeTurnsOf(db));
    groups.set(db, group);
  }
  return group;
}

/**
 * PostgreSQL: the last statement of a unit of work, sent with the COMMIT in one round trip once the commit hooks
 * have run. A statement that locks a row every payment of a workspace waits on (the receipt counter) holds it
 * then for its own execution and the commit only, not for the round trips and event-loop turns after it. In
 * the unit's result, `token` stands for the text the statement makes (a receipt number); `settle` gets the
 * statement's row and puts that text in. Nothing may run on the transaction after the statement is left.
 */
export interface FinalStatement {
  query: Compilable<unknown>;
  token: string;
  settle(row: unknown): void;
}

interface FinalSlot {
  statement: FinalStatement | null;
  /** Once the work has returned, no statement is left any more; the hooks' writes may still be carried. */
  closed: boolean;
  carried: Compilable<unknown>[];
}

/** The transactions whose unit of work takes a final statement, and the statement once one is left. */
const finalSlots = new WeakMap<DbOrTrx, FinalSlot>();

/**
 * Leaves `statement` to be sent with the commit of the unit of work of `trx`: false when that unit takes none
 * (SQLite, a transaction not opened by `inTransaction`, a request hook that needs the final result, or a
 * statement already left), and the caller runs it itself.
 */
export function leaveForCommit(trx: Trx, statement: FinalStatement): boolean {
  const slot = finalSlots.get(trx);
  if (!slot || slot.closed || slot.statement) return false;
  slot.statement = statement;
  return true;
}

/**
 * A commit hook's write that returns nothing, carried in the unit's final statement (as one of its CTEs)
 * instead of a round trip of its own: false when the unit of `db` has no final statement, and the caller
 * runs it itself.
 */
export function carryToCommit(db: DbOrTrx, write: Compilable<unknown>): boolean {
  const slot = finalSlots.get(db);
  if (!slot?.statement) return false;
  slot.carried.push(write);
  return true;
}

/**
 * The final statement with the writes carried, each a CTE before its own, and the commit: one text with its
 * parameters (`$n`), which the connection prepares once and then runs by EXECUTE (`PreparingClient`).
 */
function finalQuery(statement: FinalStatement, carried: readonly Compilable<unknown>[]): CompiledQuery {
  const parameters: unknown[] = [];
  const join = (query: Compilable<unknown>) => {
    const compiled = query.compile();
    const text = shiftPlaceholders(compiled.sql, parameters.length);
    parameters.push(...compiled.parameters);
    return text;
  };
  const ctes = carried.map((write, i) => `"carried_${i}" as (${join(write)})`).join(', ');
  const text = join(statement.query);
  const joined =
    ctes === '' ? text : /^with /i.test(text) ? `with ${ctes}, ${text.slice(5)}` : `with ${ctes} ${text}`;
  return CompiledQuery.raw(`${joined};\ncommit`, parameters);
}

async function runWithCommit(trx: Trx, slot: FinalSlot & { statement: FinalStatement }): Promise<void> {
  const { rows } = await trx.executeQuery(finalQuery(slot.statement, slot.carried));
  slot.statement.settle(rows[0]);
}

/** PostgreSQL's unit: the work, the hooks, then the final statement the work left (if any) with the commit. */
function postgresUnit<T>(work: (trx: Trx) => Promise<T>, request: RequestHooks | undefined) {
  const hooks = request ? [...request.hooks] : [];
  const offered = hooks.every((hook) => hook.runsBeforeFinal === true);
  return async (trx: Trx): Promise<T> => {
    const slot: FinalSlot = { statement: null, closed: false, carried: [] };
    if (offered) finalSlots.set(trx, slot);
    try {
      const result = await holding(request, () => work(trx));
      slot.closed = true;
      const final = slot.statement;
      for (const hook of hooks) await hook.beforeCommit(trx, result, final?.token ?? null);
      if (final) await runWithCommit(trx, { ...slot, statement: final });
      return result;
    } finally {
      finalSlots.delete(trx);
    }
  };
}

/**
 * The one way services open a transaction. Everything inside uses `trx`, never the root handle (on SQLite
 * that would wait on the connection the transaction holds). `owner` is the tenant a request acts as (its
 * `AuthContext`): the result of the unit is then the request's response, and the request's commit hooks run
 * with it before the commit. Work of no request, and work a request runs before its own change, pass null.
 * On SQLite units of work that arrive together share one durable commit, each in its own savepoint
 * (`GroupCommit`); the promise settles once the commit is durable either way.
 */
export function inTransaction<T>(
  ctx: { db: Db; dialect: DialectName },
  owner: object | null,
  work: (trx: Trx) => Promise<T>,
  /**
   * Background work that can wait (report rollups): on SQLite it takes the write lock in the gaps the server's
   * requests leave, without asking them for a turn (`WriteTurns`).
   */
  options: { patient?: boolean } = {},
): Promise<T> {
  const request = hooksFor(owner);
  if (ctx.dialect !== 'sqlite') return ctx.db.transaction().execute(postgresUnit(work, request));
  if (!request) return groupCommit(ctx.db).run(work, options.patient);
  const hooks = [...request.hooks];
  return groupCommit(ctx.db).run(async (trx: Trx) => {
    const result = await holding(request, () => work(trx));
    for (const hook of hooks) await hook.beforeCommit(trx, result, null);
    return result;
  });
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
