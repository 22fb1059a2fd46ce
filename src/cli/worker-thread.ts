/**
 * The embedded worker's thread: `serve` runs background jobs here, on an event loop and database connections
 * of their own, so deliveries keep up while requests keep the main loop busy. Started by `embedded-worker.ts`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Fastify from 'fastify';
import { createContext } from '../assembly.js';
import { loadConfig } from '../config.js';
import { checkpointLog, openDatabase } from '../db/database.js';
import { WriteTurns } from '../db/write-turns.js';
import { Worker } from '../jobs/worker.js';
import { databaseOptions } from './database.js';
import type { ThreadMessage, WorkerThreadData } from './embedded-worker.js';

/** Connections of the worker's own pool on PostgreSQL. */
const WORKER_POOL = 4;
const FORWARD_EVERY_MS = 1_000;
/** How often the log is checkpointed on SQLite: some 1,500 pages at 1,000 payments a second. */
const CHECKPOINT_EVERY_MS = 500;

const port = parentPort;
if (!port) throw new Error('worker-thread.ts runs as a worker thread');
const data = workerData as WorkerThreadData;
const config = loadConfig(data.env);
const handle = openDatabase({
  ...databaseOptions(config),
  poolSize: WORKER_POOL,
  ...(data.writeTurns ? { writeTurns: new WriteTurns(data.writeTurns) } : {}),
});
const ctx = createContext({ config, db: handle.db, dialect: handle.dialect });
// Fastify's own logger, so the worker's lines look like the server's.
const logHost = Fastify({ logger: { level: config.logLevel } });
const worker = new Worker(ctx, logHost.log);

/** Delivery attempts counted here are added to the server's /metrics. */
const forwarded = new Map<string, number>();
async function forwardMetrics(): Promise<void> {
  const { values } = await ctx.metrics.deliveryAttempts.get();
  const deltas: Record<string, number> = {};
  for (const { labels, value } of values) {
    const status = String(labels.status);
    deltas[status] = value - (forwarded.get(status) ?? 0);
    forwarded.set(status, value);
  }
  port?.postMessage({ kind: 'deliveries', deltas } satisfies ThreadMessage);
}
const timer = setInterval(() => void forwardMetrics(), FORWARD_EVERY_MS);
// The server's connection leaves checkpoints to this thread (`checkpointElsewhere`).
const checkpoints =
  handle.dialect === 'sqlite'
    ? setInterval(() => void checkpointLog(handle.db).catch(() => undefined), CHECKPOINT_EVERY_MS)
    : undefined;

port.on('message', async (message: unknown) => {
  if (message !== 'stop') return;
  await worker.stop();
  clearInterval(timer);
  clearInterval(checkpoints);
  await forwardMetrics();
  await handle.close();
  await logHost.close();
  port.postMessage({ kind: 'stopped' } satisfies ThreadMessage);
  // Nothing is left to keep the thread alive once its port closes: it ends.
  port.close();
});

worker.start();
port.postMessage({ kind: 'started', workerId: worker.id } satisfies ThreadMessage);
