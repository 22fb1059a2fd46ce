import { ConfigError } from '../config.js';
import type { Command } from './command.js';
import { type CliIo, CommandError, println, UsageError } from './io.js';
import { jobsCommand } from './jobs.js';
import { keyCreateCommand } from './key-create.js';
import { keyListCommand } from './key-list.js';
import { keyRevokeCommand } from './key-revoke.js';
import { messagesListCommand } from './messages-list.js';
import { messagesSetCommand } from './messages-set.js';
import { migrateCommand } from './migrate.js';
import { providerListCommand } from './provider-list.js';
import { providerResealCommand } from './provider-reseal.js';
import { providerSetCommand } from './provider-set.js';
import { serveCommand } from './serve.js';
import { userCreateCommand } from './user-create.js';
import { workerCommand } from './worker.js';
import { workspaceCreateCommand } from './workspace-create.js';
import { workspaceListCommand } from './workspace-list.js';
import { workspaceUpdateCommand } from './workspace-update.js';

export type { CliIo } from './io.js';

const COMMANDS: readonly Command[] = [
  serveCommand,
  workerCommand,
  migrateCommand,
  workspaceCreateCommand,
  workspaceListCommand,
  workspaceUpdateCommand,
  keyCreateCommand,
  keyListCommand,
  keyRevokeCommand,
  providerSetCommand,
  providerListCommand,
  providerResealCommand,
  messagesSetCommand,
  messagesListCommand,
  userCreateCommand,
  jobsCommand,
];

const EXIT_OK = 0;
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

function commandList(commands: readonly Command[]): string {
  return commands.map((command) => `  paytrack ${command.synopsis}\n      ${command.summary}`).join('\n');
}

const MAIN_HELP = `paytrack: record and collect money a business is owed, over a JSON HTTP API.

Usage: paytrack <command> [options]

Commands:
${commandList(COMMANDS)}

Run 'paytrack <command> --help' for a command's options.
Configuration comes from the environment, as for the server: PORT, HOST, DATA_DIR,
DATABASE_URL (a postgres:// URL switches from the embedded SQLite to PostgreSQL),
PUBLIC_URL, RATE_LIMIT_PER_MINUTE, REDIS_URL, WEBHOOK_ALLOW_PRIVATE, SMTP_URL,
MAIL_FROM, MESSAGE_PROVIDER_URL, MESSAGE_PROVIDER_API_KEY, MESSAGE_PROVIDER_NAME,
SMS_FROM, WHATSAPP_FROM, LOG_LEVEL, EMBEDDED_WORKER; and, read by serve on the first
start only, for the workspace it creates: PAYTRACK_NAME, PAYTRACK_CURRENCY,
PAYTRACK_TIMEZONE, PAYTRACK_COUNTRY (or serve's --name, --currency, --timezone, --country).
Exit status: 0 done, 1 failed, 2 bad usage or configuration.`;

function groupHelp(group: string, commands: readonly Command[]): string {
  return `Usage: paytrack ${group} <command> [options]\n\nCommands:\n${commandList(commands)}`;
}

/** `node:util` parseArgs reports bad options as TypeErrors with these codes. */
function isParseArgsError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

function failed(io: CliIo, command: Command, error: unknown): number {
  if (error instanceof UsageError || isParseArgsError(error)) {
    println(io.stderr, `paytrack ${command.name}: ${error.message}`);
    println(io.stderr, `Run 'paytrack ${command.name} --help' for usage.`);
    return EXIT_USAGE;
  }
  if (error instanceof ConfigError) {
    println(io.stderr, `paytrack ${command.name}: ${error.message}`);
    return EXIT_USAGE;
  }
  if (error instanceof CommandError) {
    println(io.stderr, `paytrack ${command.name}: ${error.message}`);
    return EXIT_FAILURE;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  println(io.stderr, `paytrack ${command.name} failed: ${detail}`);
  return EXIT_FAILURE;
}

const wantsHelp = (args: readonly string[]) => args.includes('--help') || args.includes('-h');

/** Runs one command line (without `node` and the script) and returns its exit status; never exits. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    println(io.stderr, MAIN_HELP);
    return EXIT_USAGE;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    println(io.stdout, MAIN_HELP);
    return EXIT_OK;
  }

  const group = COMMANDS.filter((command) => command.name.startsWith(`${first} `));
  let command = COMMANDS.find((candidate) => candidate.name === first);
  let args = rest;
  if (group.length > 0) {
    const [sub, ...subArgs] = rest;
    command = group.find((candidate) => candidate.name === `${first} ${sub}`);
    args = subArgs;
    if (!command) {
      const help = groupHelp(first, group);
      if (sub === undefined || sub === '--help' || sub === '-h') {
        println(sub === undefined ? io.stderr : io.stdout, help);
        return sub === undefined ? EXIT_USAGE : EXIT_OK;
      }
      println(io.stderr, `paytrack ${first}: unknown command '${sub}'\n\n${help}`);
      return EXIT_USAGE;
    }
  }
  if (!command) {
    println(io.stderr, `paytrack: unknown command '${first}'. Run 'paytrack --help' for the list.`);
    return EXIT_USAGE;
  }

  if (wantsHelp(args)) {
    println(io.stdout, command.help);
    return EXIT_OK;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    return failed(io, command, error);
  }
}
