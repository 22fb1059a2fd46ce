import type { Config } from './config.js';
import type { AppContext } from './context.js';
import type { DialectName } from './db/dialect.js';
import type { Db } from './db/schema.js';
import { idempotencyExpirySweep } from './http/idempotency.sweep.js';
import { sweepJob } from './jobs/sweeps.js';
import { type Clock, systemClock } from './lib/clock.js';
import { usePublicUrl } from './lib/public-url.js';
import { secretBox } from './lib/secret-box.js';
import { createMetrics } from './metrics.js';
import { KeyCache } from './modules/api-keys/index.js';
import { modules } from './modules/index.js';
import { registryOf } from './modules/manifest.js';
import { createPorts, type Ports } from './ports/ports.js';
import { chargeRecordIn } from './ports/simulated-charges.js';
import { simulatorRecordsIn } from './ports/simulator-records.js';

// Where the process is assembled: the modules' registry and the context every service and job receives. The app
// (`app.ts`), the worker thread and the CLI build their context here.

/** The infrastructure's own jobs and sweeps, beside those of the modules. */
export const registry = registryOf(modules, { jobs: [sweepJob], sweeps: [idempotencyExpirySweep] });

export interface ContextOptions {
  config: Readonly<Config>;
  db: Db;
  dialect: DialectName;
  clock?: Clock;
  ports?: Ports;
}

export function createContext(options: ContextOptions): AppContext {
  const clock = options.clock ?? systemClock;
  usePublicUrl(options.config.publicUrl);
  return {
    config: options.config,
    db: options.db,
    dialect: options.dialect,
    clock,
    ports:
      options.ports ??
      createPorts(options.config, chargeRecordIn(options.db, clock), simulatorRecordsIn(options.db, clock)),
    registry,
    metrics: createMetrics(),
    keys: new KeyCache(clock),
    secrets: secretBox(options.config.secretKeys),
  };
}
