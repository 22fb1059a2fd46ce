import type { FastifyBaseLogger } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { SweepScope } from './clock/sweep-scope.js';
import type { Config } from './config.js';
import type { DialectName } from './db/dialect.js';
import type { Db, Trx } from './db/schema.js';
import type { Clock } from './lib/clock.js';
import type { SecretBox } from './lib/secret-box.js';
import type { Metrics } from './metrics.js';
import type { KeyCache, KeyGrant } from './modules/api-keys/index.js';
import type { EventSchemas } from './outbox/catalog.js';
import type { EventsTable } from './outbox/events.table.js';
import type { Ports } from './ports/ports.js';

// What the running process gives the modules and what it expects of them. A leaf: it imports only types of
// lower layers; the registry of modules is built where the app is assembled (`assembly.ts`) and passed in.

/** What the module manifests add up to: every job, sweep, event subscriber and event type. */
export interface Registry {
  jobs: ReadonlyMap<string, AnyJob>;
  sweeps: readonly SweepDefinition[];
  subscribers: readonly EventSubscriber[];
  eventTypes: readonly string[];
  /** Each event type's object schema, for the document's webhooks section. */
  eventSchemas: Readonly<EventSchemas>;
}

/** What services and jobs need from the running process; built once and passed in. */
export interface AppContext {
  config: Readonly<Config>;
  db: Db;
  dialect: DialectName;
  /**
   * The app's clock: system time, frozen in tests. Jobs, leases and signatures run on it; tenants' business
   * time comes from their tenant clock (this clock in live mode, plus the test clock's offset in test mode).
   */
  clock: Clock;
  ports: Ports;
  registry: Registry;
  metrics: Metrics;
  /** API keys as read a moment ago (`KEY_FRESH_MS`), so a request does not read its key every time. */
  keys: KeyCache<KeyGrant>;
  /** Seals and opens secrets kept at rest (provider keys) under PAYTRACK_SECRET_KEY. */
  secrets: SecretBox;
}

export interface JobContext extends AppContext {
  log: FastifyBaseLogger;
  /** Aborted when the worker loses the job's lease or stops: stop what can be stopped. */
  signal: AbortSignal;
}

export interface RunningJob {
  id: string;
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
  /**
   * The previous run was cut off (its worker died or lost the lease) before recording its outcome; whatever
   * it did outside the database may or may not have happened.
   */
  previousRunLost: boolean;
}

/** What a run ends with. Throwing is a failure too, with nothing recorded. */
export interface JobResult<R = never> {
  /** The run failed: retried after the backoff while attempts remain, then kept as failed. */
  error?: string;
  /** When a failed run is retried, if not after the definition's backoff. */
  retryAt?: Date;
  /**
   * The run did one share of a larger piece of work and succeeded: the job runs again at this time (other due
   * jobs are claimed first), its failed attempts counted from zero again.
   */
  rerunAt?: Date;
  /**
   * Rows the run leaves (a delivery attempt, say), written by the definition's `writeRecords` in the
   * transaction that completes or reschedules the job, so the job's state and its records agree.
   */
  records?: readonly R[];
}

/** One kind of background work. Handlers must be idempotent: a job can run again after a crash. */
export interface JobDefinition<S extends TSchema = TSchema, R = never, L = undefined> {
  name: string;
  payload: S;
  maxAttempts: number;
  /** Milliseconds to wait after the given failed attempt (1-based) before the next one. */
  backoffMs(attempt: number): number;
  /** Jobs of the same group run at most `groupConcurrency` at a time, so one slow group holds back no other. */
  group?(payload: Static<S>): string;
  groupConcurrency?: number;
  /** A recurring job: after each successful run it is due again this many milliseconds later. */
  repeatEveryMs?(payload: Static<S>): number;
  /**
   * Fetches what the runs of a batch of these jobs need, for all of them at once (one query for many jobs);
   * returns one value per payload, in order. Each run gets its own as `loaded`.
   */
  load?(ctx: AppContext, payloads: readonly Static<S>[]): Promise<readonly L[]>;
  run(ctx: JobContext, payload: Static<S>, job: RunningJob, loaded: L): Promise<JobResult<R> | undefined>;
  /** Writes the records of every run that ended together, at once. */
  writeRecords?(trx: Trx, records: readonly R[]): Promise<unknown>;
}

/** A job definition with its payload parser compiled. */
export interface Job<S extends TSchema = TSchema, R = never, L = undefined> extends JobDefinition<S, R, L> {
  /** Checks a stored payload; throws when it is not one this job understands. */
  parse(payload: unknown): Static<S>;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds jobs of every payload type
export type AnyJob = Job<any, any, any>;

/**
 * Time-driven work: records that are due by their tenant's clock (obligations falling due, retries, reminders,
 * expiries). Repeated by the worker on every scope, and run by a test clock's advance at each instant where
 * something falls due on the way.
 */
export interface SweepDefinition {
  name: string;
  everyMs: number;
  /**
   * Handles what is due in the scope at `scope.now`; returns how many records it handled. `log` is there when
   * the worker runs it (a test clock's advance runs it without).
   */
  run(ctx: AppContext & { log?: FastifyBaseLogger }, scope: SweepScope): Promise<number>;
  /**
   * For work that falls due with time: the earliest instant strictly after `scope.now` at which this sweep will
   * find something in the scope, as things stand (null: nothing ahead). A test clock's advance steps from one
   * such instant to the next, running at each the sweeps due then. Without it, the sweep's work does not come
   * due with time (what failed and is tried again): an advance runs it at its first and last steps.
   */
  nextDueAfter?(ctx: AppContext, scope: SweepScope): Promise<Date | null>;
  /**
   * Sweeps whose work this one's can make due at the same instant (an attempt created when its obligation falls
   * due is due itself; a mandate activated lets blocked attempts run): when it handled something, they run right
   * after it on the same scope, at the same instant, in the worker as in an advance, so that work never waits
   * for their next turn. An advance relies on it between its first and last steps.
   */
  feeds?: readonly string[];
  /**
   * Bookkeeping that no other sweep reads and that comes out the same whenever it runs (report rollups): an
   * advance runs it at its last step only.
   */
  bookkeeping?: boolean;
}

/** Something that acts on events: webhooks, later reminders or reports. Listed in module manifests. */
export interface EventSubscriber {
  name: string;
  /**
   * Runs in the relay's transaction for each batch of new events, oldest first; what it writes (jobs, say)
   * commits together with the events being marked dispatched, so each event reaches it once.
   */
  handle(trx: Trx, ctx: AppContext, events: readonly EventsTable[]): Promise<void>;
}
