import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import type { Mode } from '../../lib/tenant.js';

interface Counter {
  workspaceId: string;
  mode: Mode;
  day: string;
  keyId: string;
  requests: number;
  errors: number;
}

/**
 * Counts keyed requests in memory and adds them to `api_usage` every few seconds, so the hot path
 * does no extra write; the counters are added to, never overwritten, so several nodes can share them.
 */
export class UsageRecorder {
  private pending = new Map<string, Counter>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly intervalMs = 5_000,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush().catch(() => {}), this.intervalMs);
    this.timer.unref();
  }

  record(key: { workspaceId: string; mode: Mode; keyId: string }, isError: boolean): void {
    const day = this.clock.now().toISOString().slice(0, 10);
    const id = `${key.keyId}|${day}`;
    let counter = this.pending.get(id);
    if (!counter) {
      counter = {
        workspaceId: key.workspaceId,
        mode: key.mode,
        day,
        keyId: key.keyId,
        requests: 0,
        errors: 0,
      };
      this.pending.set(id, counter);
    }
    counter.requests += 1;
    if (isError) counter.errors += 1;
  }

  /** Writes what is counted so far; readers call it first so the figures they show are exact. */
  flush(): Promise<void> {
    // A failed write must not poison the chain: its counts are already back in `pending` for the next one.
    this.flushing = this.flushing.catch(() => {}).then(() => this.write());
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      await this.db
        .insertInto('api_usage')
        .values(
          batch.map((c) => ({
            workspace_id: c.workspaceId,
            mode: c.mode,
            day: c.day,
            key_id: c.keyId,
            requests: c.requests,
            errors: c.errors,
          })),
        )
        .onConflict((oc) =>
          oc.columns(['workspace_id', 'mode', 'day', 'key_id']).doUpdateSet({
            requests: sql`api_usage.requests + excluded.requests`,
            errors: sql`api_usage.errors + excluded.errors`,
          }),
        )
        .execute();
    } catch (error) {
      // Put the counts back so a passing database error loses nothing.
      for (const c of batch) {
        const id = `${c.keyId}|${c.day}`;
        const current = this.pending.get(id);
        if (current) {
          current.requests += c.requests;
          current.errors += c.errors;
        } else this.pending.set(id, c);
      }
      throw error;
    }
  }
}
