import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import { bootstrapIfEmpty } from './bootstrap.js';
import type { Command } from './command.js';
import { describeDatabase, openMigrated } from './database.js';
import { type EmbeddedWorker, startEmbeddedWorker } from './embedded-worker.js';
import { CommandError, println } from './io.js';
import { bootstrapMessage } from './quickstart.js';
import { untilShutdown } from './signals.js';

const LISTEN_PROBLEMS: Record<string, string> = {
  EADDRINUSE: 'the address is in use (another process listens there; set PORT or HOST)',
  EACCES: 'permission denied (ports below 1024 need privileges; set PORT)',
  EADDRNOTAVAIL: 'the address is not one of this machine (set HOST)',
};

async function listen(app: FastifyInstance, host: string, port: number): Promise<void> {
  try {
    await app.listen({ host, port });
  } catch (error) {
    const problem = LISTEN_PROBLEMS[String((error as { code?: unknown } | null)?.code)];
    if (problem) throw new CommandError(`cannot listen on ${host}:${port}: ${problem}`);
    throw error;
  }
}

export const serveCommand: Command = {
  name: 'serve',
  synopsis: 'serve',
  summary: 'Serve the HTTP API; runs background jobs too unless EMBEDDED_WORKER=false',
  help: `Usage: paytrack serve

Migrates the database, then serves the API on HOST:PORT until SIGINT or SIGTERM.
On the first start with an empty database, once it listens, it creates a default
workspace and prints one test API key with all scopes.
Background jobs (webhooks, reminders, exports, obligations, attempts) run in this
process, on a worker thread, unless EMBEDDED_WORKER=false; then run 'paytrack worker'
beside it.`,

  async run(args, io) {
    parseArgs({ args, options: {}, strict: true, allowPositionals: false });
    const config = loadConfig(io.env);
    const shutdown = untilShutdown(io.signal);
    const { handle, applied } = await openMigrated(config, { create: true });
    let app: FastifyInstance | undefined;
    let worker: EmbeddedWorker | undefined;
    try {
      for (const name of applied) println(io.stdout, `Applied migration ${name}`);
      app = await buildApp({ config, db: handle.db, dialect: handle.dialect });
      await listen(app, config.host, config.port);
      // Only once it listens: a start that fails leaves the database empty, and the next start prints the key.
      const created = await bootstrapIfEmpty(app.ctx);
      const jobs = config.embeddedWorker
        ? 'background jobs on a worker thread'
        : 'background jobs left to paytrack worker';
      println(
        io.stdout,
        `paytrack listening on http://${config.host}:${config.port} (${describeDatabase(config)}; ${jobs})`,
      );
      if (created) println(io.stdout, bootstrapMessage(created, config.publicUrl));
      if (config.embeddedWorker) worker = startEmbeddedWorker(io.env, app.ctx.metrics, app.log);
      await shutdown;
      println(io.stdout, 'paytrack shutting down');
    } finally {
      await worker?.stop();
      await app?.close();
      await handle.close();
    }
    return 0;
  },
};
