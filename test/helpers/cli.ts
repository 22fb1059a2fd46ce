import assert from 'node:assert/strict';
import type { Output } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/run.js';
import type { TestDatabase } from './app.js';

/** The environment the command line reads, pointing at the test database (a schema on PostgreSQL). */
export function cliEnv(database: TestDatabase): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { DATA_DIR: database.dataDir, LOG_LEVEL: 'silent' };
  if (database.databaseUrl && database.schema) {
    const url = new URL(database.databaseUrl);
    url.searchParams.set('options', `-c search_path=${database.schema}`);
    env.DATABASE_URL = url.toString();
  }
  return env;
}

/** Collects what a command writes and lets a test wait for a line. */
export class Collector implements Output {
  text = '';
  private waiters: { text: string; resolve: () => void }[] = [];

  write(chunk: string): boolean {
    this.text += chunk;
    this.waiters = this.waiters.filter((waiter) => {
      if (!this.text.includes(waiter.text)) return true;
      waiter.resolve();
      return false;
    });
    return true;
  }

  waitFor(text: string): Promise<void> {
    if (this.text.includes(text)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ text, resolve }));
  }
}

export async function cli(env: NodeJS.ProcessEnv, ...argv: string[]) {
  const stdout = new Collector();
  const stderr = new Collector();
  const code = await runCli(argv, { env, stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** A command that must succeed and print JSON. */
export async function cliJson(env: NodeJS.ProcessEnv, ...argv: string[]) {
  const result = await cli(env, ...argv);
  assert.equal(result.code, 0, `paytrack ${argv.join(' ')}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

export { freePort } from '../../bench/processes.js';

/** A long-running command (`serve`, `worker`) in this process; resolves once it printed `ready`. */
export async function startCommand(argv: string[], env: NodeJS.ProcessEnv, ready: string) {
  const stdout = new Collector();
  const stderr = new Collector();
  const controller = new AbortController();
  const exited = runCli(argv, { env, stdout, stderr, signal: controller.signal });
  const early = exited.then((code) => {
    throw new Error(`paytrack ${argv.join(' ')} exited early with ${code}: ${stderr.text}`);
  });
  early.catch(() => {});
  await Promise.race([stdout.waitFor(ready), early]);
  return {
    stdout,
    stderr,
    stop() {
      controller.abort();
      return exited;
    },
  };
}
