import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import { bootstrapIfEmpty } from './bootstrap.js';
import type { Command } from './command.js';
import { describeDatabase, openMigrated } from './database.js';
import { type EmbeddedWorker, startEmbeddedWorker } from './embedded-worker.js';
import { println } from './io.js';
import { bootstrapMessage } from './quickstart.js';
import { untilShutdown } from './signals.js';

export const serveCommand: Command = {
  name: 'serve',
  synopsis: 'serve',
  summary: 'Serve the HTTP API; runs background jobs too unless EMBEDDED_WORKER=false',
  help: `Usage: paytrack serve

Migrates the database, then serves the API on HOST:PORT until SIGINT or SIGTERM.
On the first start with an empty database it creates a default workspace and prints
one test API key with all scopes.
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
      const created = await bootstrapIfEmpty(app.ctx);
      await app.listen({ host: config.host, port: config.port });
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
