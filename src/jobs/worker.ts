import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.js';
import type { Trx } from '../db/schema.js';
import { inTransaction } from '../db/unit-of-work.js';
import type { Clock } from '../lib/clock.js';
import { RELAY_BATCH, relayEvents } from '../outbox/relay.js';
import type { AnyJob } from './job.js';
import * as repo from './jobs.repository.js';
import type { JobsTable } from './jobs.table.js';
import { Pause } from './pause.js';
import { scheduleSweeps } from './sweeps.js';

export interface WorkerOptions {
  /** Jobs run at once by this worker. */
  concurrency?: number;
  /** How long an idle worker waits before looking for due work again. */
  pollMs?: number;
  /** How long a claimed job is held; renewed every third of it while the job runs. */
  leaseMs?: number;
  /** Time of leases and due jobs; the app's clock by default. */
  clock?: Clock;
}

const DEFAULT_GROUP_CONCURRENCY = 4;
const KEEP_FAILED_JOBS_MS = 30 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 10 * 60_000;
const MAX_ERROR_CHARS = 1000;

/** A job that cannot succeed by being run again (unknown name, unreadable payload). */
class FinalError extends Error {}

interface Running {
  row: JobsTable;
  held: repo.Held;
  controller: AbortController;
  /** Its outcome is waiting to be written. */
  ended: boolean;
  lost: boolean;
}

interface Completion {
  running: Running;
  job: AnyJob | undefined;
  payload: unknown;
  error: string | undefined;
  retryAt: Date | undefined;
  rerunAt: Date | undefined;
  final: boolean;
  records: readonly unknown[] | undefined;
}

/**
 * Runs due jobs from the `jobs` table and relays the event outbox; any number of workers (processes or nodes)
 * can share one database. Each job is held under a lease renewed while it runs and is completed on its own as
 * soon as it ends; a job whose worker died is taken over when its lease expires. Jobs of one group (a webhook
 * endpoint) run at most their group concurrency at once, so a slow or failing group holds back no other.
 */
export class Worker {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly clock: Clock;
  private readonly running = new Map<string, Running>();
  private readonly executions = new Set<Promise<void>>();
  private completions: Completion[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private flushScheduled = false;
  private claimSeq = 0;
  private stopped = true;
  private loopDone: Promise<void> = Promise.resolve();
  private readonly relayPause = new Pause();
  private readonly claimPause = new Pause();
  private moreMayBeDue = false;
  private heartbeat: NodeJS.Timeout | null = null;
  private lastPrune = 0;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: FastifyBaseLogger,
    options: WorkerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 128;
    this.pollMs = options.pollMs ?? 200;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.clock = options.clock ?? ctx.clock;
  }

  /** Starts the loops: one relays events, one claims due jobs into free slots; each sleeps when it has nothing to do. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.heartbeat = setInterval(() => void this.renewLeases(), Math.max(10, Math.floor(this.leaseMs / 3)));
    this.loopDone = this.loop();
  }

  /** Stops claiming, lets the running jobs finish and records their outcomes. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.wake();
    await this.loopDone;
    await Promise.all(this.executions);
    await this.flush();
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  /** Looks for due work now instead of at the next poll. */
  wake(): void {
    this.relayPause.wake();
    this.claimPause.wake();
  }

  /**
   * Relays events and runs due jobs until none is left, waiting for each round (tests use it instead of
   * sleeping); returns how many jobs ran.
   */
  async drain(maxRounds = 100): Promise<number> {
    let total = 0;
    for (let round = 0; round < maxRounds; round++) {
      const relayed = await relayEvents(this.ctx);
      const claimed = await this.claimAndStart(this.concurrency);
      await Promise.all(this.executions);
      await this.flush();
      total += claimed;
      if (relayed === 0 && claimed === 0 && !this.moreMayBeDue) break;
    }
    return total;
  }

  /**
   * Relaying and claiming run as two loops side by side, so a job whose slot frees up (or whose time comes) is
   * claimed at once, not after the relay's next batch of events (measured on PostgreSQL under the payment load:
   * with one loop, each claim waited 50-150 ms behind a relay and deliveries fell seconds behind).
   */
  private async loop(): Promise<void> {
    try {
      await scheduleSweeps(this.ctx, this.clock);
    } catch (error) {
      this.log.error({ err: error }, 'scheduling sweeps failed');
    }
    await Promise.all([this.relayLoop(), this.claimLoop()]);
  }

  private async relayLoop(): Promise<void> {
    while (!this.stopped) {
      let moreEvents = false;
      try {
        const relayed = await relayEvents(this.ctx);
        moreEvents = relayed >= RELAY_BATCH;
        // The jobs the events made are due now.
        if (relayed > 0) this.claimPause.wake();
      } catch (error) {
        this.log.error({ err: error }, 'relaying events failed');
      }
      if (this.stopped) break;
      if (!moreEvents) await this.relayPause.wait(this.pollMs);
    }
  }

  private async claimLoop(): Promise<void> {
    while (!this.stopped) {
      try {
        const free = this.concurrency - this.running.size;
        if (free > 0) await this.claimAndStart(free);
        await this.pruneIfDue();
      } catch (error) {
        this.log.error({ err: error }, 'claiming jobs failed');
      }
      if (this.stopped) break;
      // Ended jobs wake the loop when their outcomes are written (slots and group room are free again).
      await this.claimPause.wait(this.pollMs);
    }
  }

  /** Claims up to `free` due jobs, respecting group limits, and starts them; returns how many it claimed. */
  private async claimAndStart(free: number): Promise<number> {
    if (free <= 0) return 0;
    const now = this.clock.now();
    const nowIso = now.toISOString();
    const token = `${this.id}#${++this.claimSeq}`;
    const claimed = await inTransaction(this.ctx, null, async (trx) => {
      const running = await repo.runningByGroup(trx, nowIso);
      const room = new Map<string, number>();
      for (const group of running) {
        const limit = this.groupLimit(group.name);
        room.set(group.groupKey, (room.get(group.groupKey) ?? limit) - group.running);
      }
      const full = [...room].filter(([, left]) => left <= 0).map(([key]) => key);
      const known = [...this.ctx.registry.jobs.keys()];
      const candidates = await repo.dueCandidates(trx, this.ctx.dialect, known, nowIso, full, free * 4);
      const chosen: repo.Candidate[] = [];
      let trimmed = false;
      for (const candidate of candidates) {
        if (chosen.length >= free) break;
        if (candidate.group_key !== null) {
          const left = room.get(candidate.group_key) ?? this.groupLimit(candidate.name);
          if (left <= 0) {
            trimmed = true;
            continue;
          }
          room.set(candidate.group_key, left - 1);
        }
        chosen.push(candidate);
      }
      this.moreMayBeDue = trimmed || candidates.length > chosen.length;
      if (chosen.length === 0) return [];
      const rows = await repo.markRunning(
        trx,
        chosen.map((c) => c.id),
        { by: token, until: new Date(now.getTime() + this.leaseMs).toISOString(), now: nowIso },
      );
      const takenOver = new Set(chosen.filter((c) => c.status === 'running').map((c) => c.id));
      return rows.map((row) => ({ row, previousRunLost: takenOver.has(row.id) }));
    });
    this.startRuns(claimed, token);
    return claimed.length;
  }

  /**
   * Starts the claimed jobs. A definition with `load` fetches what its runs need for the whole batch at once
   * (one query for many jobs) before they start.
   */
  private startRuns(claimed: readonly { row: JobsTable; previousRunLost: boolean }[], token: string): void {
    const byJob = new Map<AnyJob, { index: number; payload: unknown }[]>();
    const prepared = claimed.map(({ row, previousRunLost }, index) => {
      const running: Running = {
        row,
        held: { id: row.id, token },
        controller: new AbortController(),
        ended: false,
        lost: false,
      };
      this.running.set(row.id, running);
      const job = this.ctx.registry.jobs.get(row.name);
      let payload: unknown;
      let problem: string | undefined;
      if (!job) problem = `unknown job ${row.name}`;
      else {
        try {
          payload = job.parse(JSON.parse(row.payload));
          byJob.set(job, [...(byJob.get(job) ?? []), { index, payload }]);
        } catch (error) {
          problem = error instanceof Error ? error.message : String(error);
        }
      }
      return { running, previousRunLost, job, payload, problem };
    });
    const loaded: Promise<unknown>[] = prepared.map(() => Promise.resolve(undefined));
    for (const [job, runs] of byJob) {
      if (!job.load) continue;
      const all = job.load(
        this.ctx,
        runs.map((run) => run.payload),
      );
      runs.forEach((run, i) => {
        loaded[run.index] = all.then((values) => values[i]);
      });
    }
    prepared.forEach((run, index) => {
      const execution = this.execute(run.running, run, loaded[index] as Promise<unknown>);
      this.executions.add(execution);
      void execution.finally(() => this.executions.delete(execution));
    });
  }

  private groupLimit(name: string): number {
    return this.ctx.registry.jobs.get(name)?.groupConcurrency ?? DEFAULT_GROUP_CONCURRENCY;
  }

  private async execute(
    running: Running,
    run: { job: AnyJob | undefined; payload: unknown; problem: string | undefined; previousRunLost: boolean },
    loaded: Promise<unknown>,
  ): Promise<void> {
    const { row } = running;
    const { job, payload } = run;
    try {
      if (!job || run.problem !== undefined) throw new FinalError(run.problem ?? `unknown job ${row.name}`);
      const result = await job.run(
        { ...this.ctx, log: this.log, signal: running.controller.signal },
        payload,
        {
          id: row.id,
          attempt: row.attempts,
          maxAttempts: row.max_attempts > 0 ? row.max_attempts : job.maxAttempts,
          previousRunLost: run.previousRunLost,
        },
        await loaded,
      );
      this.complete({
        running,
        job,
        payload,
        error: result?.error,
        retryAt: result?.retryAt,
        rerunAt: result?.rerunAt,
        final: false,
        records: result?.records,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.complete({
        running,
        job,
        payload,
        error: message,
        retryAt: undefined,
        rerunAt: undefined,
        final: error instanceof FinalError,
        records: undefined,
      });
    }
  }

  private complete(completion: Completion): void {
    completion.running.ended = true;
    this.completions.push(completion);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // Completions that end together are written together; none waits for a slower job.
    setImmediate(() => {
      this.flushScheduled = false;
      void this.flush();
    });
  }

  /** Writes every pending completion; resolves when all written so far are. */
  private flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batch = this.completions;
      this.completions = [];
      if (batch.length === 0) return;
      try {
        await inTransaction(this.ctx, null, (trx) => this.writeCompletions(trx, batch));
      } catch (error) {
        this.log.error({ err: error }, 'recording job outcomes failed; recording them one by one');
        for (const completion of batch) {
          await inTransaction(this.ctx, null, (trx) => this.writeCompletions(trx, [completion])).catch(
            (err) =>
              this.log.error({ err, job: completion.running.row.id }, 'recording a job outcome failed'),
          );
        }
      }
      for (const completion of batch) this.running.delete(completion.running.row.id);
      // Slots are free again, and a group that was at its limit may have room: look for due work now.
      this.claimPause.wake();
    });
    return this.flushing;
  }

  private async writeCompletions(trx: Trx, batch: readonly Completion[]): Promise<void> {
    const now = this.clock.now();
    const owned = new Set<Completion>();
    const finished = batch.filter((c) => c.error === undefined && !c.job?.repeatEveryMs && !c.rerunAt);
    const deleted = await repo.deleteDone(
      trx,
      finished.map((c) => c.running.held),
    );
    for (const c of finished) if (deleted.has(c.running.row.id)) owned.add(c);

    for (const c of batch) {
      if (finished.includes(c)) continue;
      const { row } = c.running;
      const repeatMs = c.job?.repeatEveryMs?.(c.payload as never);
      let changes: Parameters<typeof repo.release>[2];
      if (c.error === undefined && c.rerunAt) {
        changes = {
          status: 'pending',
          attempts: 0,
          last_error: null,
          run_at: c.rerunAt.toISOString(),
          updated_at: now.toISOString(),
        };
      } else if (c.error === undefined && repeatMs !== undefined) {
        changes = {
          status: 'pending',
          attempts: 0,
          last_error: null,
          run_at: iso(now, repeatMs),
          updated_at: now.toISOString(),
        };
      } else {
        const maxAttempts = row.max_attempts > 0 ? row.max_attempts : (c.job?.maxAttempts ?? 1);
        const backoff = c.retryAt
          ? Math.max(0, c.retryAt.getTime() - now.getTime())
          : (c.job?.backoffMs(row.attempts) ?? 0);
        const gaveUp = c.final || (repeatMs === undefined && row.attempts >= maxAttempts);
        this.log.warn(
          { job: row.id, name: row.name, attempt: row.attempts, final: gaveUp, err: c.error },
          'job failed',
        );
        changes = {
          status: gaveUp ? 'failed' : 'pending',
          attempts: row.attempts,
          last_error: (c.error ?? '').slice(0, MAX_ERROR_CHARS),
          run_at: gaveUp
            ? row.run_at
            : iso(now, repeatMs === undefined ? backoff : Math.min(backoff, repeatMs)),
          updated_at: now.toISOString(),
        };
      }
      if (await repo.release(trx, c.running.held, changes)) owned.add(c);
    }
    // A job whose lease was lost belongs to whoever took it over: its records are not written.
    const recordsByJob = new Map<AnyJob, unknown[]>();
    for (const c of batch) {
      if (!owned.has(c) || c.running.lost || !c.job?.writeRecords || !c.records?.length) continue;
      recordsByJob.set(c.job, [...(recordsByJob.get(c.job) ?? []), ...c.records]);
    }
    for (const [job, records] of recordsByJob) await job.writeRecords?.(trx, records);
  }

  private async renewLeases(): Promise<void> {
    const held = [...this.running.values()].filter((running) => !running.ended);
    if (held.length === 0) return;
    try {
      const until = new Date(this.clock.now().getTime() + this.leaseMs).toISOString();
      const lost = await repo.renewLeases(
        this.ctx.db,
        held.map((r) => r.held),
        until,
      );
      for (const running of held) {
        if (!lost.has(running.row.id) || running.ended) continue;
        running.lost = true;
        running.controller.abort(new Error('the job lease was lost'));
        this.log.warn(
          { job: running.row.id, name: running.row.name },
          'job lease lost; another worker has it',
        );
      }
    } catch (error) {
      this.log.error({ err: error }, 'renewing job leases failed');
    }
  }

  private async pruneIfDue(): Promise<void> {
    const now = this.clock.now().getTime();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await repo.deleteFailedBefore(this.ctx.db, new Date(now - KEEP_FAILED_JOBS_MS).toISOString());
  }
}

function iso(from: Date, plusMs: number): string {
  return new Date(from.getTime() + plusMs).toISOString();
}
