/**
 * `npm run test:readme`: the README is a test. Every `sh` block of README.md runs, in order, in one bash session,
 * against the server its quick start starts (`npm install && npm start …`, on a fresh data directory and a free
 * port), and what the prose around each block promises is asserted (test/readme/expectations.ts). The shell lines
 * the server prints on its first start are pasted into the session as a reader would, and must be the ones the
 * README shows. A `sh` block without a `<!-- readme: NAME -->` label, or a label without expectations, fails.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../bench/processes.js';
import { type Block, blocksOf } from './blocks.js';
import { type Api, expectations } from './expectations.js';
import { BlockFailed, Shell } from './shell.js';

const root = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const log = (line: string) => process.stderr.write(`readme: ${line}\n`);

const START_TIMEOUT_MS = 300_000;
const BLOCK_TIMEOUT_MS = 120_000;
/**
 * Blocks that run a whole suite get longer: the SQLite suite took 330 s on one machine and about 900 s on a
 * machine whose Node.js ran at half that pace, past the 600 s this was.
 */
const LONG_BLOCK_TIMEOUT_MS = 1_800_000;

function fail(message: string): never {
  log(`FAILED: ${message}`);
  process.exitCode = 1;
  throw new Error(message);
}

/** Starts the quick start's block and waits for what it prints on the first start. */
async function startServer(
  block: Block,
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; printed: string }> {
  const child = spawn('bash', ['-c', block.code], {
    cwd: root,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!/API reference: \S+\n/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      fail(`the quick start did not print its first-start message\n--- stdout\n${out}\n--- stderr\n${err}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { child, printed: out };
}

/** The lines the first start says to paste, between "Try it:" and "More keys:". */
function pasteLines(printed: string): string {
  const from = printed.indexOf('Try it:');
  const to = printed.indexOf('More keys:');
  if (from < 0 || to < 0) fail(`no shell lines in the first-start message:\n${printed}`);
  return printed.slice(printed.indexOf('\n', from) + 1, to).trim();
}

/** The README shows the printed lines with a placeholder key and the default port: compare without either. */
function comparable(lines: string): string {
  return lines
    .replace(/pt_test_[0-9A-Za-z.]+/g, 'pt_test_KEY')
    .replace(/http:\/\/(localhost|127\.0\.0\.1):\d+/g, 'http://HOST')
    .trim();
}

function api(base: string, key: string): Api {
  return async (path, init = {}) => {
    const response = await fetch(`${base}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
    });
    return { status: response.status, body: await response.json() };
  };
}

async function main(): Promise<void> {
  const blocks = blocksOf(readme);
  const shellBlocks = blocks.filter((b) => b.lang === 'sh');
  for (const block of shellBlocks) {
    if (!block.label) fail(`the sh block at README.md:${block.line} has no <!-- readme: NAME --> label`);
    if (!expectations[block.label])
      fail(`the sh block '${block.label}' (README.md:${block.line}) has no expectations`);
  }
  const [first, ...rest] = shellBlocks;
  if (first?.label !== 'start') fail("the first sh block must be the quick start's, labelled 'start'");
  const shownPaste = blocks.find((b) => b.label === 'printed');
  if (!shownPaste) fail("the README shows no 'printed' block of what the first start prints");

  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'paytrack-readme-data-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    LOG_LEVEL: 'warn',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  delete env.DATABASE_URL;
  log(`start: ${first.code} (port ${port}, DATA_DIR ${dataDir})`);
  const { child, printed } = await startServer(first, env);
  const shell = new Shell(root, env);
  try {
    const paste = pasteLines(printed);
    const readmePaste = shownPaste.code.slice(shownPaste.code.indexOf('PAYTRACK_KEY='));
    if (comparable(paste) !== comparable(readmePaste)) {
      fail(
        `the README's printed lines differ from what the server prints:\n--- README\n${readmePaste}\n--- printed\n${paste}`,
      );
    }
    const key = /PAYTRACK_KEY=(pt_test_[0-9A-Za-z]{32})\n/.exec(paste)?.[1];
    if (!key) fail(`the printed lines carry no test key of the documented form:\n${paste}`);
    const call = api(`http://127.0.0.1:${port}`, key);
    await check('start', { stdout: printed, stderr: '' }, call);
    log('printed: pasting the lines the first start printed');
    await check('printed', await shell.run(paste, BLOCK_TIMEOUT_MS), call);
    for (const block of rest) {
      const label = block.label ?? '';
      log(`${label}: README.md:${block.line}`);
      const long = /\bnpm (test|run check)\b/.test(block.code);
      let ran: { stdout: string; stderr: string };
      try {
        ran = await shell.run(block.code, long ? LONG_BLOCK_TIMEOUT_MS : BLOCK_TIMEOUT_MS);
      } catch (error) {
        if (!(error instanceof BlockFailed)) throw error;
        fail(
          `${label}: ${error.message}\n--- block\n${block.code}\n--- stdout\n${error.ran.stdout}\n--- stderr\n${error.ran.stderr}`,
        );
      }
      await check(label, ran, call);
    }
    log(`all ${shellBlocks.length} sh blocks ran and kept their promises`);
  } finally {
    shell.close();
    if (child.pid) process.kill(-child.pid, 'SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function check(label: string, ran: { stdout: string; stderr: string }, call: Api): Promise<void> {
  const expect = expectations[label];
  if (!expect) fail(`no expectations for '${label}'`);
  try {
    await expect(ran.stdout, call);
  } catch (error) {
    fail(`${label}: ${(error as Error).message}\n--- stdout\n${ran.stdout}\n--- stderr\n${ran.stderr}`);
  }
}

main().catch((error) => {
  if (!process.exitCode) log(`FAILED: ${(error as Error).stack ?? error}`);
  process.exitCode = 1;
});
