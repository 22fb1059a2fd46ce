import type { TenantRef } from '../lib/tenant.js';
import type { Db, DbOrTrx } from './schema.js';

/** The most ids one statement asks for. */
const MAX_IDS = 64;

interface Waiting<Row> {
  resolve(row: Row | undefined): void;
  reject(error: unknown): void;
}

interface TenantReads<Row> {
  tenant: TenantRef;
  byId: Map<string, Waiting<Row>[]>;
}

/** Reads the tenant's rows that have one of these ids, in one statement. */
export type ReadByIds<Row> = (db: DbOrTrx, tenant: TenantRef, ids: readonly string[]) => Promise<Row[]>;

/**
 * The ids of one statement, padded with the last one to a power of two: a handful of statement texts, each
 * prepared once per connection, whatever the number of reads gathered.
 */
export function paddedIds(ids: readonly string[]): string[] {
  let size = 1;
  while (size < ids.length) size *= 2;
  const padded = [...ids];
  const last = ids[ids.length - 1] as string;
  while (padded.length < size) padded.push(last);
  return padded;
}

/**
 * Reads by id outside a transaction, gathered for one turn of the event loop: the requests that arrived
 * together share one statement per tenant (on PostgreSQL, one round trip) instead of one each. Each read still
 * starts after its request arrived, so it sees every commit acknowledged before that.
 */
class BatchedReads<Row extends { id: string }> {
  readonly #db: Db;
  readonly #read: ReadByIds<Row>;
  #pending = new Map<string, TenantReads<Row>>();

  constructor(db: Db, read: ReadByIds<Row>) {
    this.#db = db;
    this.#read = read;
  }

  find(tenant: TenantRef, id: string): Promise<Row | undefined> {
    return new Promise((resolve, reject) => {
      // After the event loop has handed every request that arrived meanwhile to its handler (as group commit).
      if (this.#pending.size === 0) setImmediate(() => this.#flush());
      const key = `${tenant.mode}:${tenant.workspaceId}`;
      let reads = this.#pending.get(key);
      if (!reads) {
        reads = { tenant, byId: new Map() };
        this.#pending.set(key, reads);
      }
      const waiting = reads.byId.get(id);
      if (waiting) waiting.push({ resolve, reject });
      else reads.byId.set(id, [{ resolve, reject }]);
    });
  }

  #flush(): void {
    const pending = this.#pending;
    this.#pending = new Map();
    for (const { tenant, byId } of pending.values()) {
      const ids = [...byId.keys()];
      for (let start = 0; start < ids.length; start += MAX_IDS) {
        const chunk = ids.slice(start, start + MAX_IDS);
        const answer = (each: (waiting: Waiting<Row>, id: string) => void) => {
          for (const id of chunk) for (const waiting of byId.get(id) ?? []) each(waiting, id);
        };
        Promise.resolve()
          .then(() => this.#read(this.#db, tenant, paddedIds(chunk)))
          .then(
            (rows) => {
              const found = new Map(rows.map((row) => [row.id, row]));
              // Each caller gets its own copy: two reads of one row must not share an object.
              answer((waiting, id) => {
                const row = found.get(id);
                waiting.resolve(row === undefined ? undefined : { ...row });
              });
            },
            (error: unknown) => answer((waiting) => waiting.reject(error)),
          );
      }
    }
  }
}

/**
 * A find-by-id that gathers concurrent reads outside a transaction (`BatchedReads`); in a transaction it reads
 * at once, on the transaction's connection.
 */
export function batchedById<Row extends { id: string }>(read: ReadByIds<Row>) {
  const batches = new WeakMap<Db, BatchedReads<Row>>();
  return async (db: DbOrTrx, tenant: TenantRef, id: string): Promise<Row | undefined> => {
    if (db.isTransaction) return (await read(db, tenant, [id]))[0];
    let batch = batches.get(db);
    if (!batch) {
      batch = new BatchedReads(db, read);
      batches.set(db, batch);
    }
    return batch.find(tenant, id);
  };
}
