/**
 * `npm run bench`: builds, then for each database starts the real server (`node dist/main.js serve`),
 * drives POST /payments (without, then with a webhook endpoint) and GET /tracks/{id} with autocannon,
 * measures the ceilings of both in the same run (the payment's transaction in pgbench or a better-sqlite3
 * loop, a bare Fastify route), runs the same payment transaction without HTTP, checks the plan's balance and
 * prints a table with each ratio.
 * `npm run bench -- --cpu-prof` also profiles the server and prints its heaviest functions.
 * After them, on a book of 100,000 plans written straight into the database: the reports step (each report's p50 and
 * p99, an export) and the console step (each console page's p50 and p99 for a signed-in owner, the API reads under
 * them; pages not built yet are listed, not failed). Then the statement step: a customer statement PDF of 500 lines
 * and one of 5,000, the server's peak RSS and heap while each streams (flat: the long one's peak near the short one's).
 * Env: BENCH_SECONDS (10), BENCH_DATABASES (postgres,sqlite), BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/),
 * BENCH_INDEX_COSTS=true (the schema copy without each index of the payment tables in turn: what each costs),
 * BENCH_ONLY (reports, console, statement, or a list such as reports,console: only those steps, on a server of their
 * own, without the request path's runs), BENCH_REPORTS=false, BENCH_CONSOLE=false and BENCH_STATEMENT=false (leave a
 * step out), BENCH_REPORTS_PLANS (100000: a smaller book for a quick look; the goals are for the full size).
 * Only the console, on SQLite: `BENCH_ONLY=console BENCH_DATABASES=sqlite npm run bench`.
 * Only the statement PDF's memory: `BENCH_ONLY=statement npm run bench`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatTable } from '../src/cli/io.js';
import { type AllocationFigures, allocationStep } from './allocation.js';
import {
  bareRouteCeiling,
  type CeilingPlan,
  type CeilingShape,
  paymentIndexes,
  pgbenchCeiling,
  sqliteLoopCeiling,
} from './ceilings.js';
import { type ConsoleFigures, consoleNote, consoleStep, consoleTables } from './console.js';
import { type DatabaseKind, prepareDatabase } from './databases.js';
import { directPayments, httpLoad, type LoadOptions, type LoadResult, roundRobin } from './load.js';
import {
  apiCall,
  buildProject,
  freePort,
  issueTestKey,
  killChildren,
  type Server,
  serverEnv,
  startServer,
} from './processes.js';
import { topFunctions } from './profile.js';
import { BOOK, type ReportsFigures, reportsStep } from './reports.js';
import { type StatementFigures, statementNote, statementStep, statementTable } from './statement.js';
import { type BalanceCheck, verifyBalance } from './verify.js';
import { startWebhookReceiver, type WebhookFigures, webhookFigures } from './webhooks.js';

const PLAN_AMOUNT = 1_000_000_000_000;
const CONNECTIONS = 32;
/** Payments are spread over this many plans; one plan alone measures its row lock, not the service. */
const PLANS = 64;
/** Payments sent to a freshly started server before the first measured run. */
const WARM_UP_SECONDS = 10;
/** The receiver answers 503 to the first attempt of one event in this many, so retries are measured too. */
const FAIL_ONE_IN = 20;
/** Goals of the request path (issue 11), as shares of the ceilings measured in the same run. */
const PAYMENT_GOAL = { postgres: 0.6, sqlite: 1.0 } as const;
const PAYMENT_P99_GOAL_MS = 25;
/** The open-loop rate whose p99 has the goal above (issue 29); a run at half the lean ceiling is shown beside it. */
const STEADY_RATE = 250;

interface IndexCost {
  index: string;
  perSecond: number;
}

interface SteadyRun {
  rate: number;
  result: LoadResult;
}
/** GET /tracks/{id} against the bare route (issue 29; it was 0.25). */
const READ_GOAL = 0.5;
/** Ceilings the webhook step must stay under (issue 5). */
const FIRST_ATTEMPT_P99_CEILING_MS = 5_000;
const RETRY_LATE_CEILING_MS = 2_000;
/** Payments on plans with schedules (allocated to obligations) keep at least this share of the rate (issue 7). */
const ALLOCATION_FLOOR = 0.8;

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
const STEPS = ['reports', 'console', 'statement'] as const;
type Step = (typeof STEPS)[number];

/** The steps BENCH_ONLY names (reports, console, statement), run alone; null runs the whole bench. */
function onlySteps(): Set<Step> | null {
  const raw = process.env.BENCH_ONLY;
  if (raw === undefined || raw === '') return null;
  const steps = raw.split(',').map((step) => step.trim());
  for (const step of steps) {
    if (!(STEPS as readonly string[]).includes(step))
      throw new Error(`BENCH_ONLY: unknown step '${step}' (${STEPS.join(', ')})`);
  }
  return new Set(steps as Step[]);
}

/**
 * BENCH_REPORTS=false, BENCH_CONSOLE=false and BENCH_STATEMENT=false leave out a step; BENCH_ONLY=reports,console
 * runs those alone.
 */
const only = onlySteps();
const withReports = only ? only.has('reports') : process.env.BENCH_REPORTS !== 'false';
const withConsole = only ? only.has('console') : process.env.BENCH_CONSOLE !== 'false';
const withIndexCosts = process.env.BENCH_INDEX_COSTS === 'true';
const withStatement = only ? only.has('statement') : process.env.BENCH_STATEMENT !== 'false';
const kinds = databaseKinds();
const cpuProfile = process.argv.includes('--cpu-prof');
const pgServerUrl = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/';
const load: LoadOptions = { connections: CONNECTIONS, seconds };

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

// Build, then per database: start, setup, a warm-up, runs of `seconds` (+1 s warm-up each), checks, stop.
// The book takes minutes to write on each database; the console step writes it when the reports step did not.
const limitSeconds =
  240 +
  kinds.length *
    (WARM_UP_SECONDS +
      10 * (seconds + 1) +
      300 +
      (withReports ? 1_800 : 0) +
      (withConsole ? 900 + (withReports ? 0 : 1_500) : 0) +
      (withStatement ? 300 : 0));
setTimeout(() => {
  log(`time limit of ${limitSeconds} s reached; stopping`);
  killChildren();
  process.exit(1);
}, limitSeconds * 1000).unref();
process.once('SIGINT', () => {
  killChildren();
  process.exit(130);
});
// Also when the bench dies of an error: a server left running would reconnect to the next run's database (same
// name) and take its jobs.
process.once('exit', killChildren);

interface Row {
  kind: DatabaseKind;
  /** Without a webhook endpoint: the request path alone, as the ceiling. */
  payments: LoadResult;
  /** The same load while every event is delivered to a local receiver. */
  paymentsWithWebhooks: LoadResult;
  reads: LoadResult;
  /** The payment's transaction straight on the database, and a bare Fastify route: the ceilings. */
  /** The payment's four statements on lean tables: the physical ceiling the ratios are of. */
  paymentCeiling: LoadResult;
  /** The same statements on a copy of paytrack's schema: what the schema alone costs, beside it. */
  schemaCeiling: LoadResult;
  /** BENCH_INDEX_COSTS=true: the schema copy's rate without each of the payment tables' indexes in turn. */
  indexCosts: IndexCost[];
  /** The whole schema copy's rate the index costs compare with: the mean of a run before them and one after. */
  indexBase: number;
  /** POST /payments at a steady 250/s and at half the lean ceiling: latency when nothing queues. */
  steady: SteadyRun[];
  readCeiling: LoadResult;
  direct: LoadResult;
  webhooks: WebhookFigures;
  allocation: AllocationFigures;
  check: BalanceCheck;
  reports: ReportsFigures | null;
  console: ConsoleFigures | null;
  statement: StatementFigures | null;
  shutdownCode: number | null;
}

async function benchDatabase(kind: DatabaseKind): Promise<Row> {
  const database = await prepareDatabase(kind, pgServerUrl);
  let server: Server | undefined;
  try {
    const port = await freePort();
    const env = serverEnv(database.env, port, { EMBEDDED_WORKER: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
    log(`${kind}: starting paytrack serve on port ${port}`);
    const profileDir = cpuProfile
      ? fs.mkdtempSync(path.join(os.tmpdir(), `paytrack-profile-${kind}-`))
      : null;
    server = await startServer(env, port, profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
    const { workspaceId, key } = await issueTestKey(env, 'Benchmark');
    const post = <T>(path: string, body: unknown) =>
      apiCall<T>((server as Server).baseUrl, key, 'POST', path, body);
    const customer = await post<{ id: string }>('/customers', {
      name: 'Bench',
      phone: '+2348031234567',
    });
    const tracks: { id: string; amount: number; customerId: string; currency: string }[] = [];
    for (let i = 0; i < PLANS; i++) {
      tracks.push(
        await post<{ id: string; amount: number; customerId: string; currency: string }>('/tracks', {
          customerId: customer.id,
          title: `Benchmark plan ${i + 1}`,
          amount: PLAN_AMOUNT,
        }),
      );
    }
    const trackIds = tracks.map((track) => track.id);
    const paymentLoad = (options = load) =>
      httpLoad(
        {
          baseUrl: (server as Server).baseUrl,
          method: 'POST',
          key,
          next: ((nextId) => () => ({
            path: '/api/v1/payments',
            body: { trackId: nextId(), amount: 1, method: 'cash' },
          }))(roundRobin(trackIds)),
        },
        options,
      );
    // A server just started ran its first ten seconds of payments at 0.5 to 0.8 of its later rate, and so did one
    // restarted on the same database: the process warms up, not the database. The runs measure what it sustains.
    log(
      `${kind}: warm-up, POST /api/v1/payments, ${CONNECTIONS} connections, ${WARM_UP_SECONDS} s, not measured`,
    );
    await paymentLoad({ connections: CONNECTIONS, seconds: WARM_UP_SECONDS });
    // The request path against its ceiling: the same work as the ceiling's transaction, so no webhook endpoint
    // (its events are still written and relayed). The run after it delivers every event.
    log(`${kind}: POST /api/v1/payments, ${CONNECTIONS} connections, ${seconds} s`);
    const payments = await paymentLoad();
    const receiver = await startWebhookReceiver(FAIL_ONE_IN);
    const endpoint = await post<{ id: string; createdAt: string }>('/webhooks', {
      url: receiver.url,
    });
    log(
      `${kind}: POST /api/v1/payments, ${CONNECTIONS} connections, ${seconds} s, webhooks to a local receiver`,
    );
    const paymentsWithWebhooks = await paymentLoad();
    log(`${kind}: waiting for every event's delivery and retry`);
    const webhooks = await webhookFigures(
      database.env,
      workspaceId,
      endpoint.createdAt,
      receiver,
      FAIL_ONE_IN,
      120_000,
    );
    // The runs below measure the request path alone.
    await apiCall(server.baseUrl, key, 'DELETE', `/webhooks/${endpoint.id}`);
    await receiver.close();
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
    const ceilingPlans: CeilingPlan[] = tracks.map(({ id, customerId, currency }) => ({
      id,
      customerId,
      currency,
    }));
    const ceiling = (shape: CeilingShape) =>
      kind === 'postgres'
        ? pgbenchCeiling(database.env.DATABASE_URL as string, workspaceId, ceilingPlans, load, shape)
        : sqliteLoopCeiling(database.env.DATA_DIR, workspaceId, ceilingPlans, load, shape);
    log(`${kind}: the payment's transaction without paytrack on lean tables, ${seconds} s`);
    const paymentCeiling = await ceiling('lean');
    log(`${kind}: the same transaction on a copy of paytrack's schema, ${seconds} s`);
    const schemaCeiling = await ceiling('schema');
    const indexCosts: IndexCost[] = [];
    let indexBase = schemaCeiling.perSecond;
    if (withIndexCosts) {
      for (const index of await paymentIndexes(database.env)) {
        log(`${kind}: the same transaction on the schema copy without ${index}, ${seconds} s`);
        const result =
          kind === 'postgres'
            ? await pgbenchCeiling(
                database.env.DATABASE_URL as string,
                workspaceId,
                ceilingPlans,
                load,
                'schema',
                index,
              )
            : await sqliteLoopCeiling(
                database.env.DATA_DIR,
                workspaceId,
                ceilingPlans,
                load,
                'schema',
                index,
              );
        indexCosts.push({ index, perSecond: result.perSecond });
      }
      // The machine's pace drifts over the minutes the step takes: the whole schema copy again, after it.
      log(`${kind}: the same transaction on the whole schema copy again, ${seconds} s`);
      indexBase = (indexBase + (await ceiling('schema')).perSecond) / 2;
    }
    log(`${kind}: a bare Fastify route with the same body as GET /tracks/{id}, ${CONNECTIONS} connections`);
    const body = await (
      await fetch(`${server.baseUrl}/api/v1/tracks/${trackIds[0]}`, {
        headers: { authorization: `Bearer ${key}` },
      })
    ).text();
    const readCeiling = await bareRouteCeiling(body, key, load);
    const steady: SteadyRun[] = [];
    for (const rate of [STEADY_RATE, Math.round(paymentCeiling.perSecond / 2)]) {
      log(`${kind}: POST /api/v1/payments at a steady ${rate}/s (open loop), ${seconds} s`);
      steady.push({ rate, result: await paymentLoad({ ...load, rate }) });
      // Past its rate the server still works through what it was sent after the run gave up on the answers;
      // the next run starts once it is done.
      await drained(server.baseUrl, key, (line) => log(`${kind}: ${line}`));
    }
    log(`${kind}: recordPayment without HTTP, ${CONNECTIONS} loops, ${seconds} s`);
    const direct = await directPayments(
      database.env,
      { workspaceId: workspaceId, mode: 'test' },
      roundRobin(trackIds),
      load,
    );
    const check = await verifyBalance(server.baseUrl, key, database.env, tracks);
    const allocation = await allocationStep(
      server.baseUrl,
      key,
      post,
      database.env,
      2 * PLANS,
      load,
      (line) => log(`${kind}: ${line}`),
    );

    const reports = withReports
      ? await explained(
          server,
          reportsStep(database.env, server, workspaceId, key, (line) => log(`${kind}: ${line}`)),
        )
      : null;
    const consoleFigures = withConsole
      ? await explained(
          server,
          consoleStep(kind, env, server, workspaceId, key, withReports, (line) => log(`${kind}: ${line}`)),
        )
      : null;
    const statement = withStatement
      ? await explained(
          server,
          statementStep(server, key, (line) => log(`${kind}: ${line}`)),
        )
      : null;

    const shutdownCode = await server.stop();
    server = undefined;
    if (profileDir) {
      console.log(
        `\n${kind}: the server's heaviest functions over the whole run (self time)\n${topFunctions(profileDir)}`,
      );
    }
    return {
      kind,
      payments,
      paymentsWithWebhooks,
      reads,
      paymentCeiling,
      schemaCeiling,
      indexCosts,
      indexBase,
      steady,
      readCeiling,
      direct,
      webhooks,
      allocation,
      check,
      reports,
      console: consoleFigures,
      statement,
      shutdownCode,
    };
  } finally {
    if (server) await server.stop();
    await database.drop();
  }
}

/** Waits (at most a minute) until the newest payment stays the same for a second: the server has nothing queued. */
async function drained(baseUrl: string, key: string, say: (line: string) => void): Promise<void> {
  // A read that times out behind the queue says only that the server is still busy.
  const newest = () =>
    apiCall<{ items: { id: string }[] }>(baseUrl, key, 'GET', '/payments?limit=1').then(
      (page) => page.items[0]?.id,
      () => `busy ${Date.now()}`,
    );
  const started = Date.now();
  let last = await newest();
  while (Date.now() - started < 60_000) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const now = await newest();
    if (now === last) break;
    last = now;
  }
  const waited = Date.now() - started;
  if (waited > 1_500) say(`waited ${(waited / 1000).toFixed(0)} s for the payments still queued`);
}

const whole = (n: number) => Math.round(n).toLocaleString('en-US');

const paymentRatio = (row: Row) => row.payments.perSecond / row.paymentCeiling.perSecond;
const readRatio = (row: Row) => row.reads.perSecond / row.readCeiling.perSecond;

function report(rows: Row[]): string {
  return formatTable(
    [
      'database',
      'POST /payments',
      'p99',
      'lean ceiling',
      'ratio (goal)',
      'schema copy',
      'GET /tracks/{id}',
      'p99',
      'bare route',
      'ratio (goal)',
      'direct tx',
      'p99',
      'balance',
    ],
    rows.map((row) => [
      row.kind,
      `${whole(row.payments.perSecond)}/s`,
      `${whole(row.payments.p99Ms)} ms`,
      `${whole(row.paymentCeiling.perSecond)}/s`,
      `${paymentRatio(row).toFixed(2)} (${PAYMENT_GOAL[row.kind].toFixed(2)})`,
      `${whole(row.schemaCeiling.perSecond)}/s (${(row.schemaCeiling.perSecond / row.paymentCeiling.perSecond).toFixed(2)})`,
      `${whole(row.reads.perSecond)}/s`,
      `${whole(row.reads.p99Ms)} ms`,
      `${whole(row.readCeiling.perSecond)}/s`,
      `${readRatio(row).toFixed(2)} (${READ_GOAL.toFixed(2)})`,
      `${whole(row.direct.perSecond)}/s`,
      `${row.direct.p99Ms.toFixed(1)} ms`,
      row.check.ok ? 'OK' : 'MISMATCH',
    ]),
  );
}

const ms = (value: number | undefined) => `${(value ?? 0).toFixed(1)} ms`;

/** POST /payments at steady rates (open loop): what a payment waits for when the load is below the ceiling. */
function steadyReport(rows: Row[]): string {
  return formatTable(
    ['database', 'steady rate', 'answered', 'p50', 'p99 (goal at 250/s)', 'p99.9', 'failures'],
    rows.flatMap((row) =>
      row.steady.map(({ rate, result }) => [
        row.kind,
        `${whole(rate)}/s`,
        `${whole(result.perSecond)}/s`,
        ms(result.p50Ms),
        rate === STEADY_RATE ? `${ms(result.p99Ms)} (${PAYMENT_P99_GOAL_MS} ms)` : ms(result.p99Ms),
        ms(result.p999Ms),
        String(result.failures),
      ]),
    ),
  );
}

/** Where the request path falls short of issue 11's goals. */
function requestPathShortfalls(row: Row): string[] {
  const shortfalls: string[] = [];
  if (paymentRatio(row) < PAYMENT_GOAL[row.kind])
    shortfalls.push(
      `POST /payments at ${paymentRatio(row).toFixed(2)} of the lean transaction ceiling, goal ${PAYMENT_GOAL[row.kind]}`,
    );
  const atSteadyRate = row.steady.find((run) => run.rate === STEADY_RATE)?.result;
  if (atSteadyRate && atSteadyRate.p99Ms > PAYMENT_P99_GOAL_MS)
    shortfalls.push(
      `POST /payments p99 ${whole(atSteadyRate.p99Ms)} ms at a steady ${STEADY_RATE}/s, goal ${PAYMENT_P99_GOAL_MS} ms`,
    );
  if (readRatio(row) < READ_GOAL)
    shortfalls.push(`GET /tracks/{id} at ${readRatio(row).toFixed(2)} of the bare route, goal ${READ_GOAL}`);
  return shortfalls;
}

/** A step against a server; when it fails, the error carries the end of the server's output, which says why. */
async function explained<T>(server: Server, step: Promise<T>): Promise<T> {
  try {
    return await step;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\nserver output:\n${server.output().slice(-4_000)}`);
  }
}

/** The steps BENCH_ONLY names, on a server of their own, on one book (the reports step writes it, else the console's). */
async function benchSteps(kind: DatabaseKind): Promise<{
  reports: ReportsFigures | null;
  console: ConsoleFigures | null;
  statement: StatementFigures | null;
}> {
  // A database of its own, named after the steps, so a request-path bench or another step's started meanwhile does
  // not drop it.
  const steps = STEPS.filter((step) => only?.has(step));
  const database = await prepareDatabase(kind, pgServerUrl, `paytrack_bench_${steps.join('_')}`);
  let server: Server | undefined;
  try {
    const port = await freePort();
    const env = serverEnv(database.env, port, { EMBEDDED_WORKER: 'true' });
    server = await startServer(env, port);
    const { workspaceId, key } = await issueTestKey(serverEnv(database.env, port), 'Reports benchmark');
    const stepLog = (line: string) => log(`${kind}: ${line}`);
    const reports = withReports
      ? await explained(server, reportsStep(database.env, server, workspaceId, key, stepLog))
      : null;
    if (reports) {
      log(
        `${kind}: seeded in ${reports.seedSeconds.toFixed(0)} s, folded into the rollup in ${reports.foldSeconds.toFixed(0)} s`,
      );
    }
    const consoleFigures = withConsole
      ? await explained(server, consoleStep(kind, env, server, workspaceId, key, withReports, stepLog))
      : null;
    const statement = withStatement ? await explained(server, statementStep(server, key, stepLog)) : null;
    return { reports, console: consoleFigures, statement };
  } finally {
    if (server) await server.stop();
    await database.drop();
  }
}

function reportsTable(figures: [DatabaseKind, ReportsFigures][]): string {
  const paths = figures[0]?.[1].timings.map((t) => t.path) ?? [];
  return formatTable(
    ['database', ...paths.map((p) => `${p} p50/p99`), 'export (rows, s)', 'RSS idle → peak'],
    figures.map(([kind, f]) => [
      kind,
      ...f.timings.map(
        (t) => `${t.p50Ms.toFixed(0)}/${t.p99Ms.toFixed(0)} ms${t.calls < 50 ? ` (${t.calls} calls)` : ''}`,
      ),
      `${whole(f.exportRows)} in ${f.exportSeconds.toFixed(1)} s`,
      `${whole(f.idleRssMb)} → ${whole(f.exportPeakRssMb)} MB`,
    ]),
  );
}

const reportsNote = () =>
  `Reports: ${whole(BOOK.plans)} plans, ${whole(BOOK.plans * BOOK.paymentsPerPlan)} payments, ${whole(BOOK.plans * BOOK.obligationsPerPlan)} obligations written straight into the database; each report called 50 times after one warm-up (5 when a call takes over a second); targets p99 <= 100 ms and an export's peak RSS at most 100 MB above idle.`;

buildProject(log);

if (only) {
  const figures: [DatabaseKind, ReportsFigures][] = [];
  const consoleFigures: [DatabaseKind, ConsoleFigures][] = [];
  const statementFigures: [DatabaseKind, StatementFigures][] = [];
  const failures: string[] = [];
  for (const kind of kinds) {
    try {
      const f = await benchSteps(kind);
      if (f.reports) {
        figures.push([kind, f.reports]);
        failures.push(...f.reports.problems.map((p) => `${kind} reports: ${p}`));
      }
      if (f.console) {
        consoleFigures.push([kind, f.console]);
        failures.push(...f.console.problems.map((p) => `${kind} console: ${p}`));
      }
      if (f.statement) {
        statementFigures.push([kind, f.statement]);
        failures.push(...f.statement.problems.map((p) => `${kind} statement: ${p}`));
      }
    } catch (error) {
      failures.push(`${kind}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (figures.length > 0) {
    console.log(reportsTable(figures));
    console.log(reportsNote());
  }
  if (consoleFigures.length > 0) {
    console.log(consoleTables(consoleFigures));
    console.log(consoleNote(consoleFigures));
  }
  if (statementFigures.length > 0) {
    console.log(statementTable(statementFigures));
    console.log(statementNote(statementFigures));
  }
  for (const problem of failures) console.log(`problem: ${problem}`);
  process.exit(failures.length > 0 ? 1 : 0);
}

const rows: Row[] = [];
const problems: string[] = [];
for (const kind of kinds) {
  try {
    const row = await benchDatabase(kind);
    rows.push(row);
    for (const [what, result] of [
      ['POST /payments', row.payments],
      ['POST /payments with webhooks', row.paymentsWithWebhooks],
      ['GET /tracks/{id}', row.reads],
      ['lean transaction ceiling', row.paymentCeiling],
      ['schema-copy transaction ceiling', row.schemaCeiling],
      ['bare route', row.readCeiling],
      ['direct', row.direct],
    ] as const) {
      if (result.failures > 0) problems.push(`${kind} ${what}: ${result.failureDetail}`);
    }
    for (const { rate, result } of row.steady) {
      if (result.failures > 0) problems.push(`${kind} steady ${rate}/s: ${result.failureDetail}`);
    }
    if (!row.check.ok) problems.push(`${kind} balance: ${row.check.text}`);
    for (const shortfall of requestPathShortfalls(row)) problems.push(`${kind} ${shortfall}`);
    for (const [what, result] of [
      ['POST /payments, plans without schedules', row.allocation.plain],
      ['POST /payments, scheduled plans', row.allocation.scheduled],
    ] as const) {
      if (result.failures > 0) problems.push(`${kind} ${what}: ${result.failureDetail}`);
    }
    if (!row.allocation.exact) problems.push(`${kind} allocation: ${row.allocation.detail}`);
    if (row.allocation.ratio < ALLOCATION_FLOOR) {
      problems.push(
        `${kind} allocation: payments on scheduled plans ran at ${row.allocation.ratio.toFixed(2)} of the rate without schedules, floor ${ALLOCATION_FLOOR}`,
      );
    }
    const hooks = row.webhooks;
    if (hooks.delivered < hooks.events)
      problems.push(`${kind} webhooks: ${hooks.events - hooks.delivered} events never delivered`);
    if (hooks.firstAttemptP99Ms >= FIRST_ATTEMPT_P99_CEILING_MS) {
      problems.push(
        `${kind} webhooks: p99 event to first attempt ${hooks.firstAttemptP99Ms} ms, ceiling ${FIRST_ATTEMPT_P99_CEILING_MS} ms`,
      );
    }
    if (hooks.retryLateMaxMs >= RETRY_LATE_CEILING_MS) {
      problems.push(
        `${kind} webhooks: a retry went out ${hooks.retryLateMaxMs} ms after it was due, ceiling ${RETRY_LATE_CEILING_MS} ms`,
      );
    }
    for (const problem of row.reports?.problems ?? []) problems.push(`${kind} reports: ${problem}`);
    for (const problem of row.console?.problems ?? []) problems.push(`${kind} console: ${problem}`);
    for (const problem of row.statement?.problems ?? []) problems.push(`${kind} statement: ${problem}`);
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
if (rows.some((row) => row.steady.length > 0)) {
  console.log(steadyReport(rows));
  console.log(
    `Steady: POST /payments in open loop at ${STEADY_RATE}/s and at half the lean ceiling: request i is sent at its due time (i / rate after the start) whatever the answers' pace, and its latency is counted from that due time.`,
  );
}
for (const row of rows) console.log(`${row.kind} balance check: ${row.check.text}`);
for (const row of rows.filter((r) => r.indexCosts.length > 0)) {
  const base = row.indexBase;
  console.log(
    formatTable(
      [`${row.kind}: schema copy without`, 'tx/s', 'gain over the whole schema copy'],
      row.indexCosts
        .map(({ index, perSecond }) => ({ index, perSecond, gain: perSecond / base - 1 }))
        .sort((a, b) => b.gain - a.gain)
        .map(({ index, perSecond, gain }) => [
          index,
          `${whole(perSecond)}/s`,
          `${(100 * gain).toFixed(1)} %`,
        ]),
    ),
  );
  console.log(
    `Index costs (${row.kind}): the payment's transaction on the schema copy (${whole(base)}/s, the mean of a run before the step and one after) with one index dropped at a time; what a payment would gain without it. Runs of one pass each: differences under about 5 % are noise.`,
  );
}
console.log(
  formatTable(
    [
      'database',
      'POST /payments with webhooks',
      'p99',
      'events',
      'delivered',
      'event→1st attempt p50',
      'p99',
      'retries',
      'retry late p50',
      'max',
    ],
    rows.map(({ kind, paymentsWithWebhooks: p, webhooks: w }) => [
      kind,
      `${whole(p.perSecond)}/s`,
      `${whole(p.p99Ms)} ms`,
      String(w.events),
      String(w.delivered),
      `${whole(w.firstAttemptP50Ms)} ms`,
      `${whole(w.firstAttemptP99Ms)} ms`,
      String(w.retries),
      `${whole(w.retryLateP50Ms)} ms`,
      `${whole(w.retryLateMaxMs)} ms`,
    ]),
  ),
);
console.log(
  `Webhooks: the payment run again with a webhook endpoint, every event delivered to a local receiver that answers 503 to one first attempt in ${FAIL_ONE_IN}; ` +
    `ceilings: p99 event to first attempt < ${FIRST_ATTEMPT_P99_CEILING_MS} ms, retry < ${RETRY_LATE_CEILING_MS} ms after due.`,
);
console.log(
  "lean ceiling = the payment's transaction (debit, payment, ledger entry, event; one durable commit each) on tables of only the columns it writes and a primary key each, in pgbench with the same connections on PostgreSQL (its p99 column is pgbench's mean latency), in one better-sqlite3 loop on SQLite (WAL, synchronous=FULL); schema copy = the same on a copy of paytrack's schema (its share of the lean ceiling in brackets: what indexes, markers and wide rows cost); bare route = Fastify alone answering the same body. direct = recordPayment without HTTP.",
);
console.log(
  formatTable(
    ['database', 'POST /payments, no schedule', 'p99', 'with a 12-obligation schedule', 'p99', 'ratio'],
    rows.map(({ kind, allocation: a }) => [
      kind,
      `${whole(a.plain.perSecond)}/s`,
      `${whole(a.plain.p99Ms)} ms`,
      `${whole(a.scheduled.perSecond)}/s`,
      `${whole(a.scheduled.p99Ms)} ms`,
      a.ratio.toFixed(2),
    ]),
  ),
);
for (const row of rows) console.log(`${row.kind} allocation check: ${row.allocation.detail}`);
const withFigures = rows.flatMap((row): [DatabaseKind, ReportsFigures][] =>
  row.reports ? [[row.kind, row.reports]] : [],
);
if (withFigures.length > 0) {
  console.log(reportsTable(withFigures));
  console.log(reportsNote());
}
const withConsoleFigures = rows.flatMap((row): [DatabaseKind, ConsoleFigures][] =>
  row.console ? [[row.kind, row.console]] : [],
);
if (withConsoleFigures.length > 0) {
  console.log(consoleTables(withConsoleFigures));
  console.log(consoleNote(withConsoleFigures));
}
const withStatementFigures = rows.flatMap((row): [DatabaseKind, StatementFigures][] =>
  row.statement ? [[row.kind, row.statement]] : [],
);
if (withStatementFigures.length > 0) {
  console.log(statementTable(withStatementFigures));
  console.log(statementNote(withStatementFigures));
}
console.log(
  `Allocation: the same payments on plans without schedules and on plans with a monthly schedule of 12 obligations, back to back; floor ${ALLOCATION_FLOOR}.`,
);
if (problems.length > 0) {
  console.log(`\nProblems:\n  ${problems.join('\n  ')}`);
  process.exitCode = 1;
}
