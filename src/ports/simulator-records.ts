import type { Db } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';

/** What the test-mode simulator of a real provider keeps, so that it answers later as the provider would. */
export interface SimulatorRecordsTable {
  key: string;
  /** JSON, of the simulator's own shape for the kind of record the key names. */
  state: string;
  created_at: string;
  updated_at: string;
}

declare module '../db/schema.js' {
  interface Database {
    simulator_records: SimulatorRecordsTable;
  }
}

export interface SimulatorRecord<T> {
  state: T;
  createdAt: string;
}

export interface SimulatorRecords {
  /** The record under `key`, or `state` kept as the first when there was none. */
  once<T>(key: string, state: T): Promise<SimulatorRecord<T>>;
  get<T>(key: string): Promise<SimulatorRecord<T> | undefined>;
  /** Replaces the record's state only while it is still `from` (compared as stored). */
  change<T>(key: string, from: T, to: T): Promise<boolean>;
}

export function simulatorRecordsIn(db: Db, clock: Clock): SimulatorRecords {
  const get = async <T>(key: string) => {
    const row = await db
      .selectFrom('simulator_records')
      .selectAll()
      .where('key', '=', key)
      .executeTakeFirst();
    return row && { state: JSON.parse(row.state) as T, createdAt: row.created_at };
  };
  return {
    async once(key, state) {
      const now = clock.now().toISOString();
      await db
        .insertInto('simulator_records')
        .values({ key, state: JSON.stringify(state), created_at: now, updated_at: now })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
      return (await get(key)) as SimulatorRecord<never>;
    },
    get,
    async change(key, from, to) {
      const changed = await db
        .updateTable('simulator_records')
        .set({ state: JSON.stringify(to), updated_at: clock.now().toISOString() })
        .where('key', '=', key)
        .where('state', '=', JSON.stringify(from))
        .executeTakeFirst();
      return Number(changed.numUpdatedRows) > 0;
    },
  };
}
