/**
 * `npm run bench`: builds, then for each database starts the real server (`node dist/main.js serve`),
 * drives POST /payments and GET /tracks/{id} with autocannon, runs the same payment transaction
 * without HTTP, checks the plan's balance and prints a table.
 * Env: BENCH_SECONDS (10), BENCH_DATABASES (postgres,sqlite), BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/).
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { formatTable } from '../src/cli/io.js';
import { type DatabaseKind, prepareDatabase } from './databases.js';
import { directPayments, httpLoad, type LoadOptions, type LoadResult, roundRobin } from './load.js';
import { freePort, killChildren, paytrackJson, type Server, startServer } from './processes.js';
import { type BalanceCheck, verifyBalance } from './verify.js';

const PLAN_AMOUNT = 1_000_000_000_000;
const CONNECTIONS = 32;
/** Payments are spread over this many plans; one plan alone measures its row lock, not the service. */
const PLANS = 64;

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number, got '${raw}'`);
  return value;
}

function databaseKinds(): DatabaseKind[] {
  const listed = (process.env.BENCH_DATABASES || 'postgres,sqlite').split(',').map((kind) => kind.trim());
  for (const kind of listed) {
    if (kind !== 'postgres' && kind !== 'sqlite')
      throw new Error(`BENCH_DATABASES: unknown database '${kind}'`);
  }
  return listed as DatabaseKind[];
}

const seconds = positiveNumber('BENCH_SECONDS', 10);
const kinds = databaseKinds();
const pgServerUrl = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/';
const load: LoadOptions = { connections: CONNECTIONS, seconds };

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

// Build, then per database: start, setup, three runs of `seconds` (+1 s warm-up each), checks, stop.
const limitSeconds = 240 + kinds.length * (3 * (seconds + 1) + 120);
setTimeout(() => {
  log(`time limit of ${limitSeconds} s reached; stopping`);
  killChildren();
  process.exit(1);
}, limitSeconds * 1000).unref();
process.once('SIGINT', () => {
  killChildren();
  process.exit(130);
});

interface Row {
  kind: DatabaseKind;
  payments: LoadResult;
  reads: LoadResult;
  direct: LoadResult;
  check: BalanceCheck;
  shutdownCode: number | null;
}

async function post<T>(server: Server, key: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${server.baseUrl}/api/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}

async function benchDatabase(kind: DatabaseKind): Promise<Row> {
  const database = await prepareDatabase(kind, pgServerUrl);
  let server: Server | undefined;
  try {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...database.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      RATE_LIMIT_PER_MINUTE: '100000000',
      LOG_LEVEL: 'warn',
      EMBEDDED_WORKER: 'true',
    };
    log(`${kind}: starting paytrack serve on port ${port}`);
    server = await startServer(env, port);

    // Issued by the command line while the server runs, as an operator would.
    const workspace = await paytrackJson<{ id: string }>(env, [
      'workspace',
      'create',
      '--name',
      'Benchmark',
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
    const customer = await post<{ id: string }>(server, key, '/customers', {
      name: 'Bench',
      phone: '+2348031234567',
    });
    const tracks: { id: string; amount: number }[] = [];
    for (let i = 0; i < PLANS; i++) {
      tracks.push(
        await post<{ id: string; amount: number }>(server, key, '/tracks', {
          customerId: customer.id,
          title: `Benchmark plan ${i + 1}`,
          amount: PLAN_AMOUNT,
        }),
      );
    }
    const trackIds = tracks.map((track) => track.id);

    log(`${kind}: POST /api/v1/payments, ${CONNECTIONS} connections, ${seconds} s`);
    const payments = await httpLoad(
      {
        baseUrl: server.baseUrl,
        method: 'POST',
        key,
        next: ((nextId) => () => ({
          path: '/api/v1/payments',
          body: { trackId: nextId(), amount: 1, method: 'cash' },
        }))(roundRobin(trackIds)),
      },
      load,
    );
    log(`${kind}: GET /api/v1/tracks/{id}, ${CONNECTIONS} connections, ${seconds} s`);
    const reads = await httpLoad(
      {
        baseUrl: server.baseUrl,
        method: 'GET',
        key,
        next: ((nextId) => () => ({ path: `/api/v1/tracks/${nextId()}` }))(roundRobin(trackIds)),
      },
      load,
    );
    log(`${kind}: recordPayment without HTTP, ${CONNECTIONS} loops, ${seconds} s`);
    const direct = await directPayments(
      database.env,
      { workspaceId: workspace.id, mode: 'test' },
      roundRobin(trackIds),
      load,
    );
    const check = await verifyBalance(server.baseUrl, key, database.env, tracks);

    const shutdownCode = await server.stop();
    server = undefined;
    return { kind, payments, reads, direct, check, shutdownCode };
  } finally {
    if (server) await server.stop();
    await database.drop();
  }
}

const whole = (n: number) => Math.round(n).toLocaleString('en-US');

function report(rows: Row[]): string {
  return formatTable(
    [
      'database',
      'POST /payments',
      'p99',
      'GET /tracks/{id}',
      'p99',
      'direct tx',
      'p99',
      'HTTP/direct',
      'balance',
    ],
    rows.map((row) => [
      row.kind,
      `${whole(row.payments.perSecond)}/s`,
      `${whole(row.payments.p99Ms)} ms`,
      `${whole(row.reads.perSecond)}/s`,
      `${whole(row.reads.p99Ms)} ms`,
      `${whole(row.direct.perSecond)}/s`,
      `${row.direct.p99Ms.toFixed(1)} ms`,
      (row.payments.perSecond / row.direct.perSecond).toFixed(2),
      row.check.ok ? 'OK' : 'MISMATCH',
    ]),
  );
}

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

const rows: Row[] = [];
const problems: string[] = [];
for (const kind of kinds) {
  try {
    const row = await benchDatabase(kind);
    rows.push(row);
    for (const [what, result] of [
      ['POST /payments', row.payments],
      ['GET /tracks/{id}', row.reads],
      ['direct', row.direct],
    ] as const) {
      if (result.failures > 0) problems.push(`${kind} ${what}: ${result.failureDetail}`);
    }
    if (!row.check.ok) problems.push(`${kind} balance: ${row.check.text}`);
    if (row.shutdownCode !== 0) problems.push(`${kind}: serve exited with ${row.shutdownCode} on SIGTERM`);
  } catch (error) {
    problems.push(`${kind}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
console.log(
  `\npaytrack bench: ${CONNECTIONS} connections over ${PLANS} plans, ${seconds} s per run, Node ${process.version}, ${os.cpus().length} × ${cpu}`,
);
console.log(report(rows));
for (const row of rows) console.log(`${row.kind} balance check: ${row.check.text}`);
console.log(
  'HTTP/direct = POST /payments req/s divided by recordPayment tx/s without HTTP (same transaction, same database).',
);
if (problems.length > 0) {
  console.log(`\nProblems:\n  ${problems.join('\n  ')}`);
  process.exitCode = 1;
}
