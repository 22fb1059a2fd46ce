import type { Config } from './config.js';
import type { DialectName } from './db/dialect.js';
import type { Db } from './db/schema.js';
import type { EventSchemas } from './events/catalog.js';
import type { EventSubscriber } from './events/relay.js';
import { idempotencyExpirySweep } from './http/idempotency.sweep.js';
import type { AnyJob } from './jobs/job.js';
import { type SweepDefinition, sweepJob } from './jobs/sweeps.js';
import { type Clock, systemClock } from './lib/clock.js';
import { createMetrics, type Metrics } from './metrics.js';
import type { KeyWithWorkspace } from './modules/api-keys/api-keys.repository.js';
import { KeyCache } from './modules/api-keys/key-cache.js';
import { modules } from './modules/index.js';
import { registryOf } from './modules/manifest.js';
import { createPorts, type Ports } from './ports/ports.js';
import { chargeRecordIn } from './ports/simulated-charges.js';

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
  keys: KeyCache<KeyWithWorkspace>;
}

export interface ContextOptions {
  config: Readonly<Config>;
  db: Db;
  dialect: DialectName;
  clock?: Clock;
  ports?: Ports;
}

/** The infrastructure's own jobs and sweeps, beside those of the modules. */
const registry = registryOf(modules, { jobs: [sweepJob], sweeps: [idempotencyExpirySweep] });

export function createContext(options: ContextOptions): AppContext {
  const clock = options.clock ?? systemClock;
  return {
    config: options.config,
    db: options.db,
    dialect: options.dialect,
    clock,
    ports: options.ports ?? createPorts(options.config, chargeRecordIn(options.db, clock)),
    registry,
    metrics: createMetrics(),
    keys: new KeyCache(clock),
  };
}
