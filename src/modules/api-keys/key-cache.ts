import type { Clock } from '../../lib/clock.js';

/**
 * How long a node answers from a key it read before reading it again. A key revoked (by the command line, on any
 * node) is refused everywhere within this, and so is a test clock moved on another node seen; on the node that
 * moved it the change is seen at once.
 */
export const KEY_FRESH_MS = 500;
const MAX_KEYS = 10_000;

interface Entry<T> {
  value: T;
  readAt: number;
}

/**
 * Live API keys as last read, by hash, so a request does not read its key again within `KEY_FRESH_MS`. Unknown
 * and revoked keys are never kept. Time is the app's clock, so tests move it rather than wait.
 */
export class KeyCache<T extends { workspace_id: string }> {
  readonly #clock: Clock;
  readonly #entries = new Map<string, Entry<T>>();
  /** Bumped when a workspace's keys must be read again; a read that began before the bump is not kept. */
  #generation = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  get(hash: string): T | undefined {
    const entry = this.#entries.get(hash);
    if (!entry) return undefined;
    const age = this.#clock.now().getTime() - entry.readAt;
    if (age >= KEY_FRESH_MS || age < 0) {
      this.#entries.delete(hash);
      return undefined;
    }
    return entry.value;
  }

  /** Reads the key through `read` unless fresh here; keeps what it read unless the workspace changed meanwhile. */
  async read(hash: string, read: () => Promise<T | undefined>): Promise<T | undefined> {
    const fresh = this.get(hash);
    if (fresh) return fresh;
    const generation = this.#generation;
    const readAt = this.#clock.now().getTime();
    const value = await read();
    if (value && generation === this.#generation) {
      if (this.#entries.size >= MAX_KEYS) {
        const oldest = this.#entries.keys().next().value;
        if (oldest !== undefined) this.#entries.delete(oldest);
      }
      this.#entries.set(hash, { value, readAt });
    }
    return value;
  }

  /** The workspace's keys are read again on their next use (its test clock moved). */
  forgetWorkspace(workspaceId: string): void {
    this.#generation += 1;
    for (const [hash, entry] of this.#entries) {
      if (entry.value.workspace_id === workspaceId) this.#entries.delete(hash);
    }
  }
}
