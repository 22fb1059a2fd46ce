import { type ChildProcess, execFile, spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

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

/** `paytrack <args>` from the build, expecting JSON on stdout. */
export async function paytrackJson<T>(env: NodeJS.ProcessEnv, args: string[]): Promise<T> {
  const { stdout } = await execFileAsync(process.execPath, [MAIN, ...args], { env, timeout: 30_000 });
  return JSON.parse(stdout) as T;
}

export interface Server {
  baseUrl: string;
  output(): string;
  /** SIGTERM, then the exit status; SIGKILL if it has not stopped within 15 s. */
  stop(): Promise<number | null>;
  /** SIGKILL: the process dies at once, whatever it was doing (crash tests). */
  kill(): Promise<void>;
}

/** `paytrack serve` as a child process, resolved once `/health` answers 200. */
export async function startServer(env: NodeJS.ProcessEnv, port: number): Promise<Server> {
  const child = spawn(process.execPath, [MAIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      children.delete(child);
      resolve(code);
    }),
  );

  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`paytrack serve exited with ${child.exitCode}:\n${output}`);
    const healthy = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(1000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`paytrack serve did not answer /health within 30 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    baseUrl,
    output: () => output,
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
