import { AsyncResource } from 'node:async_hooks';
import { sql } from 'kysely';
import type { Db, Trx } from './schema.js';
import type { WriteTurns } from './write-turns.js';

/**
 * The most units of work one commit makes durable: a bound on how long a group holds the write lock, which
 * the worker thread's delivery bookkeeping waits for. Measured under 32 connections: at 32, groups of about 23
 * payments held it some 30 ms each and deliveries fell 4 to 5 s behind (p99) while payments came in. Since
 * savepoints keep their pages in memory (temp_store), the bench ran at 16: payments 1,454 to 1,708/s, and
 * deliveries 4.5 to 5.0 s behind (p99) in three runs, past the 5 s ceiling once; at 8: payments 1,432 to
 * 1,464/s, deliveries 2.0 to 2.9 s behind in three runs.
 */
const MAX_MEMBERS = 8;

interface Member {
  work: (trx: Trx) => Promise<unknown>;
  /** Work that does not ask another thread for a turn at the write lock (`inTransaction`'s `patient`). */
  patient: boolean;
  /** The caller's async context, which its work runs in (not the group's). */
  context: AsyncResource;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit on SQLite, where one connection writes and every commit pays its own fsync. Units of work that
 * arrive while a transaction is open join it, each in its own savepoint, one after the other; one commit then
 * makes all of them durable, and only then does each caller get its result. A unit that fails is rolled back to
 * its savepoint and its caller gets the error at once: nothing of it is kept, nothing of the others is undone.
 * When the commit itself fails, every member of the group gets that error, and none of them was kept.
 */
export class GroupCommit {
  readonly #db: Db;
  readonly #turns: WriteTurns | undefined;
  readonly #queue: Member[] = [];
  #running = false;

  /** `turns`: each group first gives way to a connection of another thread waiting for the write lock. */
  constructor(db: Db, turns?: WriteTurns) {
    this.#db = db;
    this.#turns = turns;
  }

  run<T>(work: (trx: Trx) => Promise<T>, patient = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // `AsyncResource.bind` would do the same, but each call also built two deprecated accessors: 2 % of a
      // payment's CPU.
      this.#queue.push({
        work,
        patient,
        context: new AsyncResource('paytrack.group-commit'),
        resolve: resolve as (result: unknown) => void,
        reject,
      });
      // The group starts after the event loop has handed every request that arrived meanwhile to its handler:
      // started at once, it would run (its statements are synchronous) and pay its fsync before the next
      // request was even read, one member per commit.
      if (!this.#running) {
        this.#running = true;
        setImmediate(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        await this.#turns?.giveWay();
        await this.#commitGroup();
      }
    } finally {
      this.#running = false;
    }
  }

  async #commitGroup(): Promise<void> {
    const kept: { member: Member; result: unknown }[] = [];
    let taken = 0;
    // A group of patient work only takes the gaps; any other member asks for a turn for the whole group.
    if (this.#turns) this.#turns.asking = this.#queue.slice(0, MAX_MEMBERS).some((member) => !member.patient);
    try {
      await this.#db.transaction().execute(async (trx) => {
        while (taken < MAX_MEMBERS) {
          const member = this.#queue.shift();
          if (!member) break;
          taken += 1;
          await sql`savepoint member`.execute(trx);
          let result: unknown;
          try {
            result = await member.context.runInAsyncScope(member.work, null, trx);
          } catch (error) {
            member.reject(error);
            // A rollback that fails (the whole transaction is gone) ends the group: no member is kept.
            await sql`rollback to member`.execute(trx);
            await sql`release member`.execute(trx);
            continue;
          }
          await sql`release member`.execute(trx);
          kept.push({ member, result });
        }
      });
    } catch (error) {
      for (const { member } of kept) member.reject(error);
      // The transaction could not even begin (the database stayed locked): everyone waiting gets that answer,
      // as each would have on its own.
      if (taken === 0) for (const member of this.#queue.splice(0)) member.reject(error);
      return;
    } finally {
      if (this.#turns) this.#turns.asking = true;
    }
    for (const { member, result } of kept) member.resolve(result);
  }
}
