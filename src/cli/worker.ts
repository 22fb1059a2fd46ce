import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { loadConfig } from '../config.js';
import { Worker } from '../jobs/worker.js';
import type { Command } from './command.js';
import { describeDatabase, openMigrated } from './database.js';
import { println } from './io.js';
import { untilShutdown } from './signals.js';

export const workerCommand: Command = {
  name: 'worker',
  synopsis: 'worker',
  summary: 'Run background jobs only, until SIGTERM (for nodes that share PostgreSQL)',
  help: `Usage: paytrack worker

Runs background jobs (webhook delivery, reminders, exports, obligations, attempts)
from the shared database until SIGINT or SIGTERM. Any number of workers may run
against one PostgreSQL database; each job runs once. Serves no HTTP.`,

  async run(args, io) {
    parseArgs({ args, options: {}, strict: true, allowPositionals: false });
    const config = loadConfig(io.env);
    const shutdown = untilShutdown(io.signal);
    const { handle, ctx, applied } = await openMigrated(config, { create: false, checkSecrets: true });
    // Fastify's own logger, so worker lines look like the server's.
    const logHost = Fastify({ logger: { level: config.logLevel } });
    const worker = new Worker(ctx, logHost.log);
    try {
      for (const name of applied) println(io.stdout, `Applied migration ${name}`);
      worker.start();
      println(
        io.stdout,
        `paytrack worker ${worker.id} running background jobs (${describeDatabase(config)})`,
      );
      await shutdown;
      println(io.stdout, 'paytrack worker stopping');
    } finally {
      await worker.stop();
      await logHost.close();
      await handle.close();
    }
    return 0;
  },
};
