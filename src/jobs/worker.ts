import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.js';
import { forUpdateSkipLocked } from '../db/dialect.js';
import { deleteExpired as deleteExpiredIdempotencyKeys } from '../http/idempotency.repository.js';
import { type JobName, jobCatalog } from './catalog.js';
import type { JobDefinition } from './job.js';
import type { JobsTable } from './jobs.table.js';

export interface WorkerOptions {
  pollMs?: number;
  batchSize?: number;
  /** How long a claimed job is held before another worker may take it over. */
  lockMs?: number;
}

const PRUNE_EVERY_MS = 10 * 60 * 1000;
const KEEP_DONE_JOBS_MS = 24 * 60 * 60 * 1000;

/** Runs due jobs from the `jobs` table; several workers (processes or nodes) can share one database. */
export class Worker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = true;
  private lastPrune = 0;
  readonly id = `${hostname()}:${process.pid}`;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: FastifyBaseLogger,
    private readonly options: WorkerOptions = {},
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const tick = async () => {
      if (this.stopped) return;
      this.running = this.runDue()
        .then(() => this.pruneIfDue())
        .catch((error) => this.log.error({ err: error }, 'worker tick failed'));
      await this.running;
      if (!this.stopped) this.timer = setTimeout(tick, this.options.pollMs ?? 500);
    };
    this.timer = setTimeout(tick, 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** Claims and runs one batch of due jobs; returns how many ran. */
  async runDue(): Promise<number> {
    const jobs = await this.claim();
    if (jobs.length === 0) return 0;
    const outcomes = await Promise.all(jobs.map((job) => this.runOne(job)));
    const done = jobs.filter((_, i) => outcomes[i]).map((job) => job.id);
    // One write marks the whole batch done: on SQLite every write transaction is a disk sync.
    if (done.length > 0) {
      await this.ctx.db
        .updateTable('jobs')
        .set({
          status: 'done',
          locked_until: null,
          last_error: null,
          updated_at: this.ctx.clock.now().toISOString(),
        })
        .where('id', 'in', done)
        .execute();
    }
    return jobs.length;
  }

  /** Runs due jobs until none is left (tests use it instead of waiting). */
  async drain(maxRounds = 100): Promise<number> {
    let total = 0;
    for (let i = 0; i < maxRounds; i++) {
      const ran = await this.runDue();
      if (ran === 0) break;
      total += ran;
    }
    return total;
  }

  private async claim(): Promise<JobsTable[]> {
    const { db, dialect, clock } = this.ctx;
    const now = clock.now();
    const nowIso = now.toISOString();
    const lockedUntil = new Date(now.getTime() + (this.options.lockMs ?? 60_000)).toISOString();
    return db.transaction().execute(async (trx) => {
      const due = await forUpdateSkipLocked(
        dialect,
        trx
          .selectFrom('jobs')
          .select('id')
          .where((eb) =>
            eb.or([
              eb.and([eb('status', '=', 'pending'), eb('run_at', '<=', nowIso)]),
              eb.and([eb('status', '=', 'running'), eb('locked_until', '<=', nowIso)]),
            ]),
          )
          .orderBy('run_at')
          .limit(this.options.batchSize ?? 20),
      ).execute();
      if (due.length === 0) return [];
      return trx
        .updateTable('jobs')
        .set((eb) => ({
          status: 'running',
          attempts: eb('attempts', '+', 1),
          locked_until: lockedUntil,
          updated_at: nowIso,
        }))
        .where(
          'id',
          'in',
          due.map((d) => d.id),
        )
        .returningAll()
        .execute();
    });
  }

  /** Runs one job; true when it succeeded (the caller marks it done), else its failure is recorded here. */
  private async runOne(job: JobsTable): Promise<boolean> {
    const { db, clock } = this.ctx;
    const definition = (jobCatalog as Record<string, JobDefinition<unknown>>)[job.name];
    const maxAttempts = job.max_attempts > 0 ? job.max_attempts : (definition?.maxAttempts ?? 1);
    try {
      if (!definition) throw new Error(`unknown job ${job.name}`);
      const payload = definition.parse(JSON.parse(job.payload));
      await definition.run({ ...this.ctx, log: this.log }, payload, {
        id: job.id,
        attempt: job.attempts,
        maxAttempts,
      });
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const final = !definition || job.attempts >= maxAttempts;
      const now = clock.now();
      this.log.warn(
        { job: job.id, name: job.name as JobName, attempt: job.attempts, final, err: message },
        'job failed',
      );
      await db
        .updateTable('jobs')
        .set({
          status: final ? 'failed' : 'pending',
          locked_until: null,
          last_error: message.slice(0, 1000),
          run_at: final
            ? job.run_at
            : new Date(now.getTime() + (definition?.backoffMs(job.attempts) ?? 0)).toISOString(),
          updated_at: now.toISOString(),
        })
        .where('id', '=', job.id)
        .execute();
      return false;
    }
  }

  private async pruneIfDue(): Promise<void> {
    const now = this.ctx.clock.now();
    if (now.getTime() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now.getTime();
    const cutoff = new Date(now.getTime() - KEEP_DONE_JOBS_MS).toISOString();
    await this.ctx.db
      .deleteFrom('jobs')
      .where('status', '=', 'done')
      .where('updated_at', '<', cutoff)
      .execute();
    await deleteExpiredIdempotencyKeys(this.ctx.db, now.toISOString());
  }
}
