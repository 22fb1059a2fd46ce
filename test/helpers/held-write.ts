import type { Trx } from '../../src/db/schema.js';
import type { TestApp } from './app.js';

export interface HeldWrite {
  /** Lets the transaction end (commit, or roll back when asked to), waits for it, and closes the connection. */
  end(): Promise<void>;
}

/**
 * Another connection to the test's database (the worker thread, the command line) that runs `write` and then
 * keeps its transaction open until `end`: on PostgreSQL it holds the rows it wrote, on SQLite the write lock.
 * Resolves once the write is done.
 */
export async function holdWrite(
  t: TestApp,
  write: (trx: Trx) => Promise<unknown>,
  outcome: 'commit' | 'rollback',
): Promise<HeldWrite> {
  const other = t.database.open();
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let written!: () => void;
  const writing = new Promise<void>((resolve) => {
    written = resolve;
  });
  const rolledBack = new Error('rolled back on purpose');
  const transaction = other.db
    .transaction()
    .execute(async (trx) => {
      await write(trx);
      written();
      await held;
      if (outcome === 'rollback') throw rolledBack;
    })
    .catch((error: unknown) => {
      if (error !== rolledBack) throw error;
    });
  // A write that fails ends the wait with its error.
  await Promise.race([writing, transaction]);
  let ended: Promise<void> | undefined;
  return {
    end() {
      ended ??= (async () => {
        release();
        await transaction;
        await other.close();
      })();
      return ended;
    },
  };
}
