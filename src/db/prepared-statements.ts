import { createHash } from 'node:crypto';
import type { Socket } from 'node:net';
import pg from 'pg';
import { executePrepared, inlineParameters } from './inline-parameters.js';

/** Distinct statements one connection keeps prepared; the rest run unnamed (parsed and planned every time). */
const MAX_PREPARED_PER_CONNECTION = 500;
/** Distinct statements sent with a commit one connection keeps prepared; the rest have their literals written in. */
const MAX_PREPARED_BY_SQL = 100;

/** PostgreSQL's answer when a prepared SELECT * meets a table whose columns changed (a migration ran meanwhile). */
const CACHED_PLAN_CHANGED = '0A000';

function statementName(text: string): string {
  return `pt_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
}

type Query = pg.Client['query'];

/** A simple query whose last statement commits: `withCommit`. */
const ENDS_WITH_COMMIT = /;\s*commit\s*$/i;

/** What `commit` answers when the statement before it already committed. */
const CARRIED_COMMIT = { command: 'COMMIT', rowCount: null, rows: [], fields: [], oid: 0 };

/** What a `begin` held for the transaction's first statement answers. */
const HELD = (command: string) => ({ command, rowCount: null, rows: [], fields: [], oid: 0 });

const ENDS_TRANSACTION = /^\s*(commit|rollback)\s*$/i;

/**
 * A connection that prepares each parameterised statement once, under a name made from its text, and then only
 * binds and executes it: PostgreSQL skips parsing and (once it settles on a generic plan) planning. Measured on
 * the payment path, it took PostgreSQL's CPU per payment from 858 to 560 µs. When a prepared plan no longer
 * fits the schema (a migration changed a table under a running server), the connection runs unnamed from then
 * on; a statement outside a transaction runs again at once, so only a transaction under way then fails (once
 * per connection).
 */
export class PreparingClient extends pg.Client {
  readonly #prepared = new Set<string>();
  /** Statements sent with a commit that this connection prepared by SQL's PREPARE, run since by EXECUTE. */
  readonly #preparedBySql = new Set<string>();
  #preparing = true;
  #inTransaction = false;
  /** The last query carried its transaction's commit: the `commit` that follows is answered without a trip. */
  #committed = false;
  /** A `begin` not sent yet: it goes in the message of the transaction's first statement. */
  #beginHeld = false;

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    const query = this.query.bind(this) as (...args: unknown[]) => unknown;
    this.query = ((...args: unknown[]) => {
      this.#corkUntilNextTick();
      const [text, values] = args;
      const unbound = values === undefined || (Array.isArray(values) && values.length === 0);
      if (text === 'begin' && unbound && !this.#inTransaction && args.length <= 2) {
        this.#follow(text);
        this.#beginHeld = true;
        return Promise.resolve(HELD('BEGIN'));
      }
      if (typeof text === 'string') this.#follow(text);
      if (this.#committed) {
        this.#committed = false;
        if (text === 'commit') return Promise.resolve(CARRIED_COMMIT);
      }
      const held = this.#beginHeld;
      this.#beginHeld = false;
      const joinable = held && typeof text === 'string' && args.length <= 2;
      if (joinable && ENDS_TRANSACTION.test(text)) return Promise.resolve(HELD(text.trim().toUpperCase()));
      if (typeof text === 'string' && args.length <= 2 && ENDS_WITH_COMMIT.test(text)) {
        return this.#withCommit(query, text, unbound ? [] : (values as unknown[]), joinable);
      }
      if (joinable) {
        const joined = this.#withBegin(text, values);
        if (joined !== null) return this.#answerOf(query, joined);
      }
      // A statement that cannot go with it: the `begin` goes first, on its own, as it would have.
      if (held) (query('begin') as Promise<unknown>).catch(() => {});
      if (args.length !== 2 || typeof text !== 'string' || !Array.isArray(values) || values.length === 0) {
        return query(...args);
      }
      const name = this.#nameFor(text);
      if (name === null) return query(text, values);
      return (query({ name, text, values }) as Promise<unknown>).catch((error: unknown) => {
        if ((error as { code?: unknown }).code !== CACHED_PLAN_CHANGED) throw error;
        this.#preparing = false;
        // Alone, the statement simply runs again unnamed; in a transaction, the transaction is lost.
        if (this.#inTransaction) throw error;
        return query(text, values);
      });
    }) as Query;
  }

  /**
   * A statement is several protocol messages (bind, describe, execute, sync), each written on its own: four
   * system calls and as many packets. Corked, the messages a query writes in this tick leave in one.
   */
  #corkUntilNextTick(): void {
    const stream = (this as unknown as { connection?: { stream?: Partial<Socket> } }).connection?.stream;
    if (typeof stream?.cork !== 'function' || typeof stream.uncork !== 'function') return;
    stream.cork();
    process.nextTick(() => stream.uncork?.());
  }

  /**
   * A statement and the commit of its transaction in one simple query: the statement's rows are the answer,
   * and the `commit` the transaction's owner sends next is answered here. Should the statement fail, PostgreSQL
   * runs nothing after it and the owner rolls back. With parameters, the statement is prepared by SQL's PREPARE
   * the first time this connection meets it (a round trip of its own, once), then runs by EXECUTE: PostgreSQL
   * neither parses nor plans it again. A prepared statement outlives a rolled-back transaction.
   */
  async #withCommit(
    query: (...args: unknown[]) => unknown,
    text: string,
    values: readonly unknown[],
    begin: boolean,
  ): Promise<unknown> {
    let prefix = begin ? 'begin;\n' : '';
    let message = `${prefix}${text}`;
    if (values.length > 0) {
      const statement = text.replace(ENDS_WITH_COMMIT, '');
      const name = this.#preparing ? statementName(statement) : null;
      if (name !== null && !this.#preparedBySql.has(name) && this.#preparedBySql.size < MAX_PREPARED_BY_SQL) {
        await query(`${prefix}prepare ${name} as ${statement}`);
        this.#preparedBySql.add(name);
        prefix = '';
      }
      const run =
        name !== null && this.#preparedBySql.has(name)
          ? executePrepared(name, values)
          : inlineParameters(statement, values);
      message = `${prefix}${run};\ncommit`;
    }
    try {
      const results = (await query(message)) as unknown;
      this.#inTransaction = false;
      this.#committed = true;
      return Array.isArray(results) ? results[prefix === '' ? 0 : 1] : results;
    } catch (error) {
      if ((error as { code?: unknown }).code === CACHED_PLAN_CHANGED) this.#preparing = false;
      throw error;
    }
  }

  /**
   * The transaction's first statement with the `begin` held for it, as one simple query: a parameterised one
   * already prepared on this connection runs by EXECUTE (its plan kept), one without parameters as it is. Null
   * when it cannot (a statement not prepared yet, a parameter no literal can carry).
   */
  #withBegin(text: string, values: unknown): string | null {
    if (values === undefined || (Array.isArray(values) && values.length === 0)) return `begin;\n${text}`;
    if (!Array.isArray(values) || !this.#preparing) return null;
    const name = statementName(text);
    const parsed = (this as unknown as { connection?: { parsedStatements?: Record<string, string> } })
      .connection?.parsedStatements;
    if (parsed?.[name] !== text) return null;
    try {
      return `begin;\n${executePrepared(name, values)}`;
    } catch {
      return null;
    }
  }

  /** The answer of the statement sent after a held `begin`: its own result, not the `begin`'s. */
  async #answerOf(query: (...args: unknown[]) => unknown, text: string): Promise<unknown> {
    try {
      const results = (await query(text)) as unknown;
      return Array.isArray(results) ? results[results.length - 1] : results;
    } catch (error) {
      if ((error as { code?: unknown }).code === CACHED_PLAN_CHANGED) this.#preparing = false;
      throw error;
    }
  }

  /** Whether a transaction is open, from the statements that open and end one. */
  #follow(text: string): void {
    if (/^\s*(begin|start\s+transaction)\b/i.test(text)) this.#inTransaction = true;
    else if (/^\s*(commit|end|abort)\b|^\s*rollback\b(?!\s+to\b)/i.test(text)) this.#inTransaction = false;
  }

  #nameFor(text: string): string | null {
    if (!this.#preparing) return null;
    const name = statementName(text);
    if (this.#prepared.has(name)) return name;
    if (this.#prepared.size >= MAX_PREPARED_PER_CONNECTION) return null;
    this.#prepared.add(name);
    return name;
  }
}
