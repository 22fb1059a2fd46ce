import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Agent, type Dispatcher, request } from 'undici';

const execFileAsync = promisify(execFile);
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
/** How much of the end of a server's output a failure shows. */
const OUTPUT_TAIL_BYTES = 16_384;

/** Every child still running, so a failure or the watchdog can stop them all. */
const children = new Set<ChildProcess>();

export function killChildren(): void {
  for (const child of children) child.kill('SIGKILL');
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * How long a start may take before `/health` answers, or a command before it exits. One start alone takes about
 * 3 s here (1.7 s of it loading the code, the rest the migrations); the real-time step starts six at once on two
 * cores (17 s each, measured), beside the command lines that issue their keys, and CI once saw one pass 30 s.
 */
const START_DEADLINE_MS = 120_000;

/** `paytrack <args>` from the build, expecting JSON on stdout. */
export async function paytrackJson<T>(env: NodeJS.ProcessEnv, args: string[]): Promise<T> {
  const { stdout } = await execFileAsync(process.execPath, [MAIN, ...args], {
    env,
    timeout: START_DEADLINE_MS,
  });
  return JSON.parse(stdout) as T;
}

export interface Server {
  baseUrl: string;
  pid: number;
  output(): string;
  /** SIGTERM, then the exit status; SIGKILL if it has not stopped within 15 s. */
  stop(): Promise<number | null>;
  /** SIGKILL: the process dies at once, whatever it was doing (crash tests). */
  kill(): Promise<void>;
}

/** `paytrack serve` as a child process, resolved once `/health` answers 200. */
export async function startServer(
  env: NodeJS.ProcessEnv,
  port: number,
  nodeArgs: string[] = [],
): Promise<Server> {
  // The server logs a line per request, as it would in use; a file takes them, so this process (which also
  // drives the load) does not read them.
  const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'paytrack-serve-')), 'output.log');
  const log = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [...nodeArgs, MAIN, 'serve'], { env, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  children.add(child);
  const output = () => {
    const size = fs.statSync(logFile).size;
    const tail = Buffer.alloc(Math.min(size, OUTPUT_TAIL_BYTES));
    const fd = fs.openSync(logFile, 'r');
    fs.readSync(fd, tail, 0, tail.length, size - tail.length);
    fs.closeSync(fd);
    return tail.toString('utf8');
  };
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      fs.appendFileSync(logFile, `\n[paytrack serve exited: code ${code}, signal ${signal}]\n`);
      children.delete(child);
      resolve(code);
    }),
  );

  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_DEADLINE_MS;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`paytrack serve exited with ${child.exitCode}:\n${output()}`);
    const healthy = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(1000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(
        `paytrack serve did not answer /health within ${START_DEADLINE_MS / 1000} s:\n${output()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    baseUrl,
    pid: child.pid as number,
    output,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** `npm run build`, so `dist/main.js` is today's code; exits the process when the build fails. */
export function buildProject(log: (line: string) => void): void {
  log('npm run build');
  const build = spawnSync('npm', ['run', 'build'], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: 180_000,
  });
  if (build.status !== 0) {
    log('build failed');
    process.exit(1);
  }
}

/** What `paytrack serve` and the command line read, for a server on loopback that no rate limit slows. */
export function serverEnv(
  database: { DATA_DIR: string; DATABASE_URL?: string },
  port: number,
  extra: NodeJS.ProcessEnv = {},
): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...database,
    HOST: '127.0.0.1',
    PORT: String(port),
    RATE_LIMIT_PER_MINUTE: '100000000',
    LOG_LEVEL: 'info',
    ...extra,
  };
}

/**
 * A workspace and an all-scopes test key, issued by the command line while the server runs, as an operator would.
 * `settings` are more options of `workspace create` (`--timezone`, `Africa/Lagos`).
 */
export async function issueTestKey(env: NodeJS.ProcessEnv, name: string, settings: string[] = []) {
  const workspace = await paytrackJson<{ id: string }>(env, [
    'workspace',
    'create',
    '--name',
    name,
    ...settings,
    '--json',
  ]);
  const { key } = await paytrackJson<{ key: string }>(env, [
    'key',
    'create',
    '--workspace',
    workspace.id,
    '--mode',
    'test',
    '--json',
  ]);
  return { workspaceId: workspace.id, key };
}

/** The connections API calls go through unless a caller brings its own. */
const calls = new Agent();

/** One API call that must succeed, through `dispatcher`'s connections; returns the envelope's `data`. */
export async function apiCall<T>(
  baseUrl: string,
  key: string,
  method: Dispatcher.HttpMethod,
  path: string,
  body?: unknown,
  dispatcher: Dispatcher = calls,
): Promise<T> {
  const response = await request(`${baseUrl}/api/v1${path}`, {
    dispatcher,
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300)
    throw new Error(`${method} ${path} answered ${response.statusCode}: ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}
