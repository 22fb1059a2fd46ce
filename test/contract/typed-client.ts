/**
 * `npm run test:client`: the OpenAPI document is good enough to generate a client from. Starts the built server,
 * generates types from its /api/v1/openapi.json with openapi-typescript (in test/client, an integrator's own
 * project with its own TypeScript), type-checks test/client/client.ts against them, and runs it: a customer, a
 * plan, a payment, then a typed amount_exceeds_balance. Run `npm ci --prefix test/client` once first.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildProject,
  freePort,
  issueTestKey,
  killChildren,
  serverEnv,
  startServer,
} from '../../bench/processes.js';

const CLIENT_DIR = fileURLToPath(new URL('../client/', import.meta.url));
const GENERATED = path.join(CLIENT_DIR, '.generated');
const log = (line: string) => process.stderr.write(`typed client: ${line}\n`);

function run(what: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const result = spawnSync(command, args, { cwd: CLIENT_DIR, env, encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) {
    throw new Error(`${what} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

if (!fs.existsSync(path.join(CLIENT_DIR, 'node_modules', 'openapi-typescript'))) {
  log('test/client has no node_modules: run npm ci --prefix test/client');
  process.exit(1);
}
buildProject(log);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paytrack-client-'));
const port = await freePort();
const env = serverEnv({ DATA_DIR: dataDir }, port);
const server = await startServer(env, port);
try {
  const { key } = await issueTestKey(env, 'Typed client');
  const document = await fetch(`${server.baseUrl}/api/v1/openapi.json`).then((response) => response.text());
  fs.rmSync(GENERATED, { recursive: true, force: true });
  fs.mkdirSync(GENERATED, { recursive: true });
  fs.writeFileSync(path.join(GENERATED, 'openapi.json'), document);

  log('openapi-typescript .generated/openapi.json');
  run('openapi-typescript', process.execPath, [
    'node_modules/openapi-typescript/bin/cli.js',
    '.generated/openapi.json',
    '-o',
    '.generated/paytrack.ts',
  ]);
  log('tsc: client.ts against the generated types');
  run('type-checking the client', process.execPath, [
    'node_modules/typescript/bin/tsc',
    '-p',
    'tsconfig.json',
  ]);
  log('running the client against the server');
  const output = run('running the client', process.execPath, ['.generated/dist/client.js'], {
    ...process.env,
    PAYTRACK_API: server.baseUrl,
    PAYTRACK_KEY: key,
  });
  console.log(output.trim());
  console.log('typed client: generated, type-checked and ran');
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
} finally {
  await server.stop();
  killChildren();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
