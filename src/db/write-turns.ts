import type { Db } from './schema.js';

/**
 * How long a group commit gives way to a connection of another thread waiting for SQLite's write lock before it
 * takes the lock anyway: a bound for when the lock is held elsewhere (a CLI command), not the usual wait, which
 * ends as soon as the other connection has the lock (a few milliseconds).
 */
const GIVE_WAY_MAX_MS = 50;

/**
 * A group commit gives way at most this often: each turn the worker takes costs a commit (an fsync) of its own.
 * Measured in the bench on SQLite, payments with every event delivered meanwhile (471 to 506/s, retries up to 2.3
 * to 3.5 s late, without turns): giving way every time, 347 to 371/s, retries up to 0.8 to 1.2 s late; at most
 * every 50 ms, 443 to 450/s but retries up to 2.0 to 2.1 s late; every 10 ms, 365 to 442/s, up to 1.2 to 1.4 s.
 */
const GIVE_WAY_EVERY_MS = 10;

/**
 * Turns at SQLite's write lock between the threads of one process that write to the same file (the server's
 * and its embedded worker's), through one shared counter of connections waiting for the lock.
 *
 * SQLite has no queue for its lock: a connection that finds it taken tries again later, and the server's group
 * commit takes it again in the same turn of the event loop it committed in. Under a steady stream of payments
 * the worker's claims and outcomes found it taken almost every time and webhook retries went out seconds late.
 * Now a connection that finds the lock taken says so (`waiting`), and a group commit about to take the lock gives
 * way first (`giveWay`) until the waiting connection has it.
 */
export class WriteTurns {
  readonly buffer: SharedArrayBuffer;
  readonly #waiting: Int32Array;
  readonly #giveWayMaxMs: number;
  /**
   * This thread's connection counts itself as waiting when it finds the lock taken: false while it begins a
   * transaction of patient work only (`inTransaction`'s `patient`), which takes the gaps other writers leave.
   */
  asking = true;
  /** When this thread's group commit last gave way (`performance.now()`). */
  #gaveWayAt = Number.NEGATIVE_INFINITY;

  constructor(
    buffer: SharedArrayBuffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT),
    giveWayMaxMs = GIVE_WAY_MAX_MS,
  ) {
    this.buffer = buffer;
    this.#waiting = new Int32Array(buffer);
    this.#giveWayMaxMs = giveWayMaxMs;
  }

  /** Connections of any thread sharing these turns that wait for the lock now. */
  get waitingNow(): number {
    return Atomics.load(this.#waiting, 0);
  }

  /** A connection found the lock taken and keeps trying. */
  waiting(): void {
    Atomics.add(this.#waiting, 0, 1);
  }

  /** That connection has the lock now, or gave up. */
  doneWaiting(): void {
    // Never below zero: `reset` may have cleared this connection's mark already, and a negative count would hold
    // every group back.
    let seen = Atomics.load(this.#waiting, 0);
    while (seen > 0) {
      const was = Atomics.compareExchange(this.#waiting, 0, seen, seen - 1);
      if (was === seen) break;
      seen = was;
    }
    Atomics.notify(this.#waiting, 0);
  }

  /** A thread that ended while it waited leaves its mark; the server clears it when that thread ends. */
  reset(): void {
    Atomics.store(this.#waiting, 0, 0);
    Atomics.notify(this.#waiting, 0);
  }

  /**
   * Before a group commit takes the lock: resolves at once when no connection waits for it or this thread gave
   * way less than `GIVE_WAY_EVERY_MS` ago, else when the number waiting changes (one of them has the lock), or
   * after `GIVE_WAY_MAX_MS`.
   */
  async giveWay(): Promise<void> {
    const seen = Atomics.load(this.#waiting, 0);
    if (seen <= 0) return;
    const now = performance.now();
    if (now - this.#gaveWayAt < GIVE_WAY_EVERY_MS) return;
    this.#gaveWayAt = now;
    const wait = Atomics.waitAsync(this.#waiting, 0, seen, this.#giveWayMaxMs);
    if (wait.async) await wait.value;
  }
}

const turnsOfDatabase = new WeakMap<Db, WriteTurns>();

/** The turns the database handle `db` was opened with (`openDatabase`'s `writeTurns`). */
export function writeTurnsOf(db: Db): WriteTurns | undefined {
  return turnsOfDatabase.get(db);
}

export function setWriteTurns(db: Db, turns: WriteTurns): void {
  turnsOfDatabase.set(db, turns);
}
