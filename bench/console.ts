import os from 'node:os';
import { Agent, request } from 'undici';
import { formatTable } from '../src/cli/io.js';
import { addDays } from '../src/lib/calendar.js';
import type { DatabaseKind } from './databases.js';
import { apiCall, paytrackJson } from './processes.js';
import { BEHIND_EVERY, BOOK, foldBook, percentile, seedBook, seededCustomerId } from './reports.js';

/** The console's goal (issue: every page within 150 ms at 100,000 plans on the embedded database). */
export const CONSOLE_P99_GOAL_MS = 150;
/** The database the goal holds for; the other's figures are reported beside it. */
const GOAL_DATABASE: DatabaseKind = 'sqlite';
const WARM_UP = 5;
const CALLS = 50;
/** A call slower than this in the warm-up leaves 5 measured calls: the figure is far from the goal anyway. */
const SLOW_MS = 1_000;
const SESSION_COOKIE = 'paytrack_session';
const PASSWORD = 'bench-console-password';

/** One page (or API read) timed: its status on the first call; calls, p50 and p99 when that was 200. */
export interface PageTiming {
  label: string;
  path: string;
  status: number;
  calls: number;
  p50Ms: number;
  p99Ms: number;
  /** The size of the page's body, in bytes. */
  bytes: number;
}

export interface ConsoleFigures {
  /** Seconds the step spent writing and folding the book itself; null when the reports step had written it. */
  seedSeconds: number | null;
  foldSeconds: number | null;
  pages: PageTiming[];
  /** The API reads the pages are made of, timed with the workspace's key: what a page costs at least. */
  api: PageTiming[];
  problems: string[];
  /** The machine's 1-minute load average when the timing began and ended: other work on it slows every figure. */
  load: [number, number];
}

/** The pages of the issue; some are still being built, and those answering other than 200 are listed as not yet. */
function consolePages(ids: { customer: string; plan: string; payment: string }): [string, string][] {
  return [
    ['overview', '/console'],
    ['today', '/console/today'],
    ['customers', '/console/customers'],
    ['customer search', '/console/customers?q=Customer%2012'],
    ['customer', `/console/customers/${ids.customer}`],
    ['plans', '/console/plans'],
    // The plans page filters by `show` (active, overdue, completed, archived); status= and filter= it ignores.
    ['overdue plans', '/console/plans?show=overdue'],
    ['plan', `/console/plans/${ids.plan}`],
    ['payments', '/console/payments'],
    ['payment', `/console/payments/${ids.payment}`],
    ['audit', '/console/audit'],
    ['settings', '/console/settings'],
  ];
}

/** The API reads a page of each kind makes (paths under /api/v1), 20 items where a list is asked. */
function apiReads(
  ids: { customer: string; plan: string; payment: string },
  today: string,
): [string, string][] {
  return [
    ['overview', `/reports/summary?from=${today}T00:00:00Z`],
    ['overview', `/reports/collections?from=${addDays(today, -89)}T00:00:00Z&groupBy=day`],
    ['overview', `/reports/expected?due_to=${addDays(today, 55)}`],
    ['today', '/reports/overdue?order=days_overdue&limit=25'],
    ['today', '/collection-attempts?status=failed&limit=20'],
    ['today', '/payment-mandates?status=pending&limit=20'],
    // No page reads it: an API read kept in view, which once walked the obligations by due date past the paid ones.
    ['obligations', '/obligations?status=overdue'],
    ['customers', '/customers'],
    ['customer search', '/customers?q=Customer%2012'],
    ['customer', `/customers/${ids.customer}`],
    ['customer', `/tracks?customerId=${ids.customer}`],
    ['customer', `/payments?customerId=${ids.customer}`],
    ['customer', `/customers/${ids.customer}/ledger`],
    ['plans', '/tracks'],
    ['overdue plans', '/tracks?overdue=true'],
    ['plan', `/tracks/${ids.plan}`],
    ['plan', `/tracks/${ids.plan}/payments`],
    ['plan', `/tracks/${ids.plan}/ledger`],
    ['plan', `/obligations?track_id=${ids.plan}`],
    ['payments', '/payments'],
    ['payment', `/payments/${ids.payment}`],
    ['audit', '/audit-log'],
    ['settings', '/account'],
    ['settings', '/webhooks'],
  ];
}

/** One GET; its status, time in ms and body size. Redirects are not followed (a 303 to sign-in is an answer). */
async function timedGet(agent: Agent, url: string, headers: Record<string, string>) {
  const began = performance.now();
  const response = await request(url, {
    dispatcher: agent,
    headers,
    signal: AbortSignal.timeout(300_000),
  }).catch((error: Error) => {
    const seconds = ((performance.now() - began) / 1000).toFixed(1);
    throw new Error(`GET ${url}: ${error.message} after ${seconds} s (${String(error.cause ?? '')})`);
  });
  const body = await response.body.arrayBuffer();
  return { status: response.statusCode, ms: performance.now() - began, bytes: body.byteLength };
}

/**
 * A page answering 200 on its first call: 4 more warm-up calls, then 50 sequential calls (5 when a warm-up call
 * took over a second), p50 and p99. Any other first answer is recorded as is and not timed.
 */
async function timePage(
  agent: Agent,
  baseUrl: string,
  headers: Record<string, string>,
  label: string,
  path: string,
  problems: string[],
): Promise<PageTiming> {
  const url = `${baseUrl}${path}`;
  const first = await timedGet(agent, url, headers);
  const timing = { label, path, status: first.status, calls: 0, p50Ms: 0, p99Ms: 0, bytes: first.bytes };
  if (first.status !== 200) return timing;
  let slowest = first.ms;
  for (let i = 1; i < WARM_UP; i++) slowest = Math.max(slowest, (await timedGet(agent, url, headers)).ms);
  const calls = slowest > SLOW_MS ? 5 : CALLS;
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const call = await timedGet(agent, url, headers);
    if (call.status !== 200) {
      problems.push(`GET ${path}: answered ${call.status} after ${i} calls that answered 200`);
      timing.status = call.status;
      break;
    }
    times.push(call.ms);
  }
  times.sort((a, b) => a - b);
  return { ...timing, calls: times.length, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99) };
}

/**
 * A person of the workspace, as an operator adds one (`paytrack user create`), who sets a password through the
 * link and is signed in by it (in test mode, where the book is); returns the cookie header of the session.
 */
async function signedIn(env: NodeJS.ProcessEnv, baseUrl: string, workspaceId: string): Promise<string> {
  const person = await paytrackJson<{ link: string }>(env, [
    'user',
    'create',
    '--workspace',
    workspaceId,
    '--email',
    'bench@example.com',
    '--role',
    'owner',
    '--json',
  ]);
  const response = await request(`${baseUrl}${new URL(person.link).pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ password: PASSWORD }).toString(),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.body.text();
  const setCookie = response.headers['set-cookie'];
  const cookies = Array.isArray(setCookie) ? setCookie : [setCookie ?? ''];
  const value = cookies
    .map((cookie) => new RegExp(`^${SESSION_COOKIE}=([^;]+)`).exec(cookie)?.[1])
    .find(Boolean);
  if (response.statusCode !== 303 || !value)
    throw new Error(
      `setting the password answered ${response.statusCode} without a session: ${text.slice(0, 300)}`,
    );
  return `${SESSION_COOKIE}=${value}`;
}

/**
 * The console's pages at 100,000 plans: the reports step's book (written here when that step did not run), a
 * person signed in, then each page of the issue called in sequence with the session's cookie (5 warm-up calls,
 * then 50: p50, p99), and the API reads the pages are made of with the workspace's key. A page that is not there
 * yet (any first answer but 200) is listed, not failed; a page over the goal on SQLite is a problem. `env` is the
 * server's environment: the command line and the book's writer find the database in it.
 */
export async function consoleStep(
  kind: DatabaseKind,
  env: NodeJS.ProcessEnv,
  server: { baseUrl: string },
  workspaceId: string,
  key: string,
  bookWritten: boolean,
  log: (line: string) => void,
): Promise<ConsoleFigures> {
  const database = {
    DATA_DIR: env.DATA_DIR ?? '',
    ...(env.DATABASE_URL ? { DATABASE_URL: env.DATABASE_URL } : {}),
  };
  let seedSeconds: number | null = null;
  let foldSeconds: number | null = null;
  if (!bookWritten) {
    log(
      `console: writing ${BOOK.plans} plans, ${BOOK.plans * BOOK.paymentsPerPlan} payments, ${BOOK.plans * BOOK.obligationsPerPlan} obligations`,
    );
    seedSeconds = await seedBook(database, workspaceId, log);
    log(`console: seeded in ${seedSeconds.toFixed(0)} s; folding the book into the report rollup`);
    foldSeconds = await foldBook(database, workspaceId);
    log(`console: folded in ${foldSeconds.toFixed(0)} s`);
  }
  // Connections opened after seeding (SQLite's seeding blocks this process; a pooled connection goes stale).
  const apiAgent = new Agent();
  // Customer 20 of the book: its plans are behind (overdue obligations), its pages show the most.
  const customer = seededCustomerId(BEHIND_EVERY);
  const plans = await apiCall<{ items: { id: string }[] }>(
    server.baseUrl,
    key,
    'GET',
    `/tracks?customerId=${customer}&limit=1`,
    undefined,
    apiAgent,
  );
  const plan = plans.items[0]?.id;
  if (!plan) throw new Error(`console: customer ${customer} of the book has no plan`);
  const payments = await apiCall<{ items: { id: string }[] }>(
    server.baseUrl,
    key,
    'GET',
    `/payments?trackId=${plan}&limit=1`,
    undefined,
    apiAgent,
  );
  const payment = payments.items[0]?.id;
  if (!payment) throw new Error(`console: plan ${plan} of the book has no payment`);
  const ids = { customer, plan, payment };

  log('console: a person signs in (paytrack user create, then the password link)');
  const cookie = await signedIn(env, server.baseUrl, workspaceId);
  const loadAtStart = os.loadavg()[0] ?? 0;
  const problems: string[] = [];
  const pages: PageTiming[] = [];
  for (const [index, [label, path]] of consolePages(ids).entries()) {
    // The console allows 600 requests a minute from one address: each page is called from an address of its own
    // on the loopback network, so the bench measures pages, not the limiter.
    const agent = new Agent({ localAddress: `127.0.0.${10 + index}` });
    try {
      const timing = await timePage(agent, server.baseUrl, { cookie }, label, path, problems);
      log(
        timing.calls > 0
          ? `console: GET ${path}: p50 ${timing.p50Ms.toFixed(0)} ms, p99 ${timing.p99Ms.toFixed(0)} ms`
          : `console: GET ${path}: ${timing.status}, not yet`,
      );
      pages.push(timing);
    } finally {
      await agent.close();
    }
  }
  if (pages[0]?.status !== 200)
    problems.push(`GET /console answered ${pages[0]?.status}: the session did not sign in`);
  if (kind === GOAL_DATABASE) {
    for (const page of pages) {
      if (page.calls > 0 && page.p99Ms > CONSOLE_P99_GOAL_MS)
        problems.push(`GET ${page.path}: p99 ${page.p99Ms.toFixed(0)} ms, goal ${CONSOLE_P99_GOAL_MS} ms`);
    }
  }

  const today = new Date().toISOString().slice(0, 10);
  const api: PageTiming[] = [];
  for (const [label, path] of apiReads(ids, today)) {
    const timing = await timePage(
      apiAgent,
      `${server.baseUrl}/api/v1`,
      { authorization: `Bearer ${key}` },
      label,
      path,
      problems,
    );
    log(
      timing.calls > 0
        ? `console: API GET ${path}: p50 ${timing.p50Ms.toFixed(0)} ms, p99 ${timing.p99Ms.toFixed(0)} ms`
        : `console: API GET ${path}: ${timing.status}`,
    );
    api.push(timing);
  }
  await apiAgent.close();
  return { seedSeconds, foldSeconds, pages, api, problems, load: [loadAtStart, os.loadavg()[0] ?? 0] };
}

const ms = (n: number) => `${n.toFixed(0)} ms`;

/** A column per database: p50/p99 and whether p99 is within the goal, or "not yet (status)". */
function cell(timing: PageTiming | undefined, goal: boolean): string {
  if (!timing) return '';
  if (timing.calls === 0) return `not yet (${timing.status})`;
  const calls = timing.calls < CALLS ? ` (${timing.calls} calls)` : '';
  const verdict = goal ? (timing.p99Ms <= CONSOLE_P99_GOAL_MS ? ' ok' : ' OVER') : '';
  return `${ms(timing.p50Ms)} / ${ms(timing.p99Ms)}${verdict}${calls}`;
}

/** The console's pages, a row each, a column of p50 / p99 per database; then the API reads under them. */
export function consoleTables(figures: [DatabaseKind, ConsoleFigures][]): string {
  const header = (what: string, goal: boolean) => [
    what,
    ...figures.map(
      ([kind]) =>
        `${kind} p50 / p99${goal && kind === GOAL_DATABASE ? ` (goal <= ${CONSOLE_P99_GOAL_MS} ms)` : ''}`,
    ),
    'KB',
  ];
  const rows = (pick: (f: ConsoleFigures) => PageTiming[], withLabel: boolean, goal: boolean) =>
    (figures[0] ? pick(figures[0][1]) : []).map((timing, i) => [
      withLabel ? `${timing.label}: ${timing.path}` : timing.path,
      ...figures.map(([kind, f]) => cell(pick(f)[i], goal && kind === GOAL_DATABASE)),
      timing.calls > 0 ? (timing.bytes / 1024).toFixed(1) : '',
    ]);
  return [
    formatTable(
      header('console page', true),
      rows((f) => f.pages, false, true),
    ),
    formatTable(
      header('API read behind a page (/api/v1)', false),
      rows((f) => f.api, true, false),
    ),
  ].join('\n');
}

export function consoleNote(figures: [DatabaseKind, ConsoleFigures][]): string {
  // By label: the pages of a plan, a customer or a payment have other ids on each database.
  const statuses = new Map<string, Set<number>>();
  for (const [, f] of figures)
    for (const p of f.pages.filter((page) => page.calls === 0))
      statuses.set(p.label, (statuses.get(p.label) ?? new Set()).add(p.status));
  const notYet = [...statuses].map(([label, codes]) => `${label} (${[...codes].join(', ')})`);
  const seeded = figures
    .filter(([, f]) => f.seedSeconds !== null)
    .map(([kind, f]) => `${kind} ${f.seedSeconds?.toFixed(0)} s (+${f.foldSeconds?.toFixed(0)} s folding)`);
  return [
    `Console: the reports' book of ${BOOK.plans.toLocaleString('en-US')} plans (${BOOK.customers.toLocaleString('en-US')} customers, ${(BOOK.plans * BOOK.paymentsPerPlan).toLocaleString('en-US')} payments, ${(BOOK.plans * BOOK.obligationsPerPlan).toLocaleString('en-US')} obligations) in test mode, an owner signed in; each page called ${CALLS} times in sequence after ${WARM_UP} warm-up calls; goal p99 <= ${CONSOLE_P99_GOAL_MS} ms on ${GOAL_DATABASE} (PostgreSQL reported, no goal). Each page from a loopback address of its own (the console allows 600 requests a minute per address). The API reads are what the pages are likely made of, called with the workspace's key.`,
    seeded.length > 0 ? `Console: book written by the console step: ${seeded.join(', ')}.` : '',
    `Console: load average (1 min) while timing, on ${os.cpus().length} cores: ${figures.map(([kind, f]) => `${kind} ${f.load[0].toFixed(1)} → ${f.load[1].toFixed(1)}`).join(', ')}.`,
    notYet.length > 0 ? `Console pages not there yet (first answer not 200): ${notYet.join(', ')}.` : '',
  ]
    .filter(Boolean)
    .join('\n');
}
