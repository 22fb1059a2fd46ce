import { Worker as Thread } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import type { WriteTurns } from '../db/write-turns.js';
import type { Metrics } from '../metrics.js';

/** What the worker thread tells the server. */
export type ThreadMessage =
  | { kind: 'started'; workerId: string }
  | { kind: 'deliveries'; deltas: Record<string, number> }
  | { kind: 'stopped' };

const RESTART_AFTER_MS = 1_000;
const STOP_TIMEOUT_MS = 20_000;

/** What the thread starts with. */
export interface WorkerThreadData {
  env: NodeJS.ProcessEnv;
  /** The server's `WriteTurns`, shared with the thread. */
  writeTurns: SharedArrayBuffer | undefined;
}

export interface EmbeddedWorker {
  /** Lets the running jobs finish and records their outcomes, then ends the thread. */
  stop(): Promise<void>;
}

/** The thread's entry; from the sources (tests run them through tsx) it is loaded through tsx too. */
function startThread(env: NodeJS.ProcessEnv, turns: WriteTurns | undefined): Thread {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = new URL(`./worker-thread.${fromSource ? 'ts' : 'js'}`, import.meta.url);
  const workerData: WorkerThreadData = { env, writeTurns: turns?.buffer };
  if (!fromSource) return new Thread(entry, { workerData });
  const load = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Thread(load, { eval: true, workerData });
}

/**
 * `serve`'s background jobs, on a worker thread of this process: an event loop and database connections of
 * their own (measured: with the worker on the server's loop, webhook deliveries fell seconds behind under the
 * payment load). A thread that dies is started again.
 */
export function startEmbeddedWorker(
  env: NodeJS.ProcessEnv,
  metrics: Metrics,
  log: FastifyBaseLogger,
  /** SQLite: the server's turns at the write lock, which the thread takes part in. */
  writeTurns?: WriteTurns,
): EmbeddedWorker {
  let stopping = false;
  let thread: Thread;
  let stopped: Promise<void> = Promise.resolve();

  const start = () => {
    thread = startThread(env, writeTurns);
    stopped = new Promise<void>((resolve) => {
      thread.on('message', (message: ThreadMessage) => {
        if (message.kind === 'deliveries') {
          for (const [status, delta] of Object.entries(message.deltas)) {
            if (delta > 0) metrics.deliveryAttempts.inc({ status }, delta);
          }
        } else if (message.kind === 'started') {
          log.info({ worker: message.workerId }, 'background jobs running on a worker thread');
        } else if (message.kind === 'stopped') {
          resolve();
        }
      });
      thread.on('error', (error) => log.error({ err: error }, 'the worker thread failed'));
      thread.on('exit', (code) => {
        // A thread that ended while it waited for the write lock would be given way to until each group's wait ran out.
        writeTurns?.reset();
        resolve();
        if (stopping) return;
        log.error({ code }, 'the worker thread stopped; starting it again');
        setTimeout(() => {
          if (!stopping) start();
        }, RESTART_AFTER_MS).unref();
      });
    });
  };
  start();

  return {
    async stop() {
      stopping = true;
      thread.postMessage('stop');
      const timeout = setTimeout(() => void thread.terminate(), STOP_TIMEOUT_MS);
      await stopped;
      clearTimeout(timeout);
    },
  };
}
