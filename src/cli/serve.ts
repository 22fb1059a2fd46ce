import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { type Config, type FirstWorkspace, loadConfig } from '../config.js';
import { WriteTurns } from '../db/write-turns.js';
import { isEmail } from '../lib/email.js';
import { workspaceProblems } from '../modules/workspaces/workspaces.service.js';
import { bootstrapIfEmpty, DEFAULT_WORKSPACE_NAME } from './bootstrap.js';
import type { Command } from './command.js';
import { describeDatabase, openMigrated } from './database.js';
import { type EmbeddedWorker, startEmbeddedWorker } from './embedded-worker.js';
import { CommandError, println, UsageError } from './io.js';
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

const FIRST_WORKSPACE_OPTIONS = ['name', 'currency', 'timezone', 'country'] as const;
const OWNER_EMAIL_OPTION = 'owner-email';

/** The first workspace's settings: the flags given, over the PAYTRACK_* variables config read. */
function firstWorkspace(config: Readonly<Config>, flags: FirstWorkspace): FirstWorkspace {
  const problems = Object.entries(workspaceProblems({ name: DEFAULT_WORKSPACE_NAME, ...flags }));
  if (problems.length > 0) {
    throw new UsageError(problems.map(([option, problem]) => `--${option} ${problem}`).join('\n'));
  }
  return { ...config.firstWorkspace, ...flags, ...(flags.name ? { name: flags.name.trim() } : {}) };
}

export const serveCommand: Command = {
  name: 'serve',
  synopsis: 'serve [--name N] [--currency C] [--timezone Z] [--country CC] [--owner-email E]',
  summary: 'Serve the HTTP API; runs background jobs too unless EMBEDDED_WORKER=false',
  help: `Usage: paytrack serve [--name N] [--currency C] [--timezone Z] [--country CC] [--owner-email E]

Migrates the database, then serves the API on HOST:PORT until SIGINT or SIGTERM.
On the first start with an empty database, once it listens, it creates a default
workspace and prints one test API key with all scopes. That workspace takes these
settings (each flag over its variable; without either, "Default workspace" in USD
and UTC, with no country):

  --name N        PAYTRACK_NAME       the business name payers see
  --currency C    PAYTRACK_CURRENCY   default currency of plans, ISO 4217 (such as NGN)
  --timezone Z    PAYTRACK_TIMEZONE   IANA time zone of calendar dates (such as Africa/Lagos)
  --country CC    PAYTRACK_COUNTRY    ISO 3166-1 alpha-2 country local phone numbers are read in (such as NG)
  --owner-email E PAYTRACK_OWNER_EMAIL the console's first owner (owner@example.com); the first start
                                      prints a one-time link that sets their password

Later starts leave the workspace as it is: change it with 'paytrack workspace update'
or PATCH /api/v1/account. With npm: npm start -- --currency NGN --timezone Africa/Lagos.
Background jobs (webhooks, reminders, exports, obligations, attempts) run in this
process, on a worker thread, unless EMBEDDED_WORKER=false; then run 'paytrack worker'
beside it.`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: Object.fromEntries(
        [...FIRST_WORKSPACE_OPTIONS, OWNER_EMAIL_OPTION].map((option) => [option, { type: 'string' }]),
      ),
      strict: true,
      allowPositionals: false,
    });
    const flags: FirstWorkspace = {};
    for (const option of FIRST_WORKSPACE_OPTIONS) {
      const value = values[option];
      if (typeof value === 'string') flags[option] = value;
    }
    const ownerEmail = values[OWNER_EMAIL_OPTION];
    if (typeof ownerEmail === 'string') {
      if (!isEmail(ownerEmail.trim()))
        throw new UsageError('--owner-email must be an e-mail address such as owner@example.com');
      flags.ownerEmail = ownerEmail.trim().toLowerCase();
    }
    const config = loadConfig(io.env);
    const first = firstWorkspace(config, flags);
    const shutdown = untilShutdown(io.signal);
    // Shared with the embedded worker's thread, which writes to the same SQLite file.
    const writeTurns = config.embeddedWorker && !config.databaseUrl ? new WriteTurns() : undefined;
    const { handle, applied } = await openMigrated(config, {
      create: true,
      checkSecrets: true,
      checkpointElsewhere: config.embeddedWorker,
      ...(writeTurns ? { writeTurns } : {}),
    });
    let app: FastifyInstance | undefined;
    let worker: EmbeddedWorker | undefined;
    try {
      for (const name of applied) println(io.stdout, `Applied migration ${name}`);
      app = await buildApp({ config, db: handle.db, dialect: handle.dialect });
      await listen(app, config.host, config.port);
      // Only once it listens: a start that fails leaves the database empty, and the next start prints the key.
      const created = await bootstrapIfEmpty(app.ctx, first);
      const jobs = config.embeddedWorker
        ? 'background jobs on a worker thread'
        : 'background jobs left to paytrack worker';
      println(
        io.stdout,
        `paytrack listening on http://${config.host}:${config.port} (${describeDatabase(config)}; ${jobs})`,
      );
      if (created) println(io.stdout, bootstrapMessage(created, config.publicUrl));
      else if (Object.keys(flags).length > 0) {
        println(
          io.stdout,
          "The database already has a workspace, so the first-start settings were not used; change a workspace's " +
            "settings with 'paytrack workspace update' or PATCH /api/v1/account.",
        );
      }
      if (config.embeddedWorker) worker = startEmbeddedWorker(io.env, app.ctx.metrics, app.log, writeTurns);
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
