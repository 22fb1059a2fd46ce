import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { type BuildAppOptions, buildApp } from '../../src/app.js';
import { createContext } from '../../src/assembly.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { Worker } from '../../src/jobs/worker.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { ChargeRequest, ChargeResult, PaymentProvider } from '../../src/ports/payment-providers.js';

export interface TestDatabase {
  /** Where the data lives: a SQLite directory or a PostgreSQL schema. */
  dataDir: string;
  databaseUrl: string | undefined;
  schema: string | undefined;
  open(): DatabaseHandle;
  drop(): Promise<void>;
}

/** A fresh, empty database: a temporary SQLite file, or a new schema when TEST_DATABASE_URL is set. */
export async function freshDatabase(): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paytrack-test-'));
  const databaseUrl = process.env.TEST_DATABASE_URL || undefined;
  let schema: string | undefined;
  if (databaseUrl) {
    schema = `t_${randomBytes(6).toString('hex')}`;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`create schema ${schema}`);
    await client.end();
  }
  return {
    dataDir,
    databaseUrl,
    schema,
    open: () => openDatabase({ dataDir, databaseUrl, ...(schema ? { schema } : {}), poolSize: 12 }),
    async drop() {
      if (databaseUrl && schema) {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query(`drop schema if exists ${schema} cascade`);
        await client.end();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  /** Relays events and runs background jobs on demand: `await t.worker.drain()`. */
  worker: Worker;
  /** The app's clock, frozen: tests move it, never sleep. Test-mode tenants see it plus their test clock. */
  clock: ManualClock;
  database: TestDatabase;
  handle: DatabaseHandle;
  /** Closes the app and the database; keeps the data unless `drop` is true. */
  close(options?: { drop?: boolean }): Promise<void>;
}

/**
 * The test app's context with its payment providers changed: a worker whose provider behaves some other way (it
 * dies mid-charge, answers later, cannot be reached). `change` gets the real provider and returns what differs.
 */
export function withProvider(
  t: TestApp,
  change: (real: PaymentProvider) => Partial<PaymentProvider>,
): AppContext {
  return createContext({
    config: t.ctx.config,
    db: t.ctx.db,
    dialect: t.ctx.dialect,
    clock: t.clock,
    ports: {
      ...t.ctx.ports,
      provider: (mode, name) => {
        const real = t.ctx.ports.provider(mode, name);
        return { ...real, ...change(real) };
      },
    },
  });
}

/** `withProvider` for the charge alone: `charge` gets the real provider's charge to call or not. */
export function withCharge(
  t: TestApp,
  charge: (request: ChargeRequest, real: PaymentProvider['charge']) => Promise<ChargeResult>,
): AppContext {
  return withProvider(t, (real) => ({ charge: (request) => charge(request, (r) => real.charge(r)) }));
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Pino options (a stream to read the log, say); no log by default. */
  logger?: object;
  http?: BuildAppOptions['http'];
  clock?: ManualClock;
  /** Reopen an existing database (restart tests). */
  database?: TestDatabase;
}

export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await freshDatabase());
  const config: Readonly<Config> = loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: database.dataDir,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...options.env,
  });
  const handle = database.open();
  await migrateToLatest(handle.db, handle.dialect);
  const clock = options.clock ?? new ManualClock();
  const app = await buildApp({
    config,
    db: handle.db,
    dialect: handle.dialect,
    clock,
    logger: options.logger ?? false,
    ...(options.http ? { http: options.http } : {}),
  });
  await app.ready();
  const worker = new Worker(app.ctx, app.log);
  return {
    app,
    ctx: app.ctx,
    worker,
    clock,
    database,
    handle,
    async close({ drop = true } = {}) {
      await worker.stop();
      await app.close();
      await handle.close();
      if (drop) await database.drop();
    },
  };
}
