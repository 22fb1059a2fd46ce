import autocannon from 'autocannon';
import { Pool } from 'undici';
import { createContext } from '../src/assembly.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { systemClock } from '../src/lib/clock.js';
import type { TenantRef } from '../src/lib/tenant.js';
import { recordPayment } from '../src/modules/payments/payments.service.js';

export interface LoadResult {
  perSecond: number;
  p99Ms: number;
  /** Open-loop runs (a `rate`) report these too. */
  p50Ms?: number;
  p999Ms?: number;
  /** Responses other than 2xx, plus connection errors and timeouts. */
  failures: number;
  failureDetail: string;
}

export interface LoadOptions {
  /** Closed loop: the connections, each sending its next request once answered. Open loop: unused. */
  connections: number;
  seconds: number;
  /**
   * Open loop: request i is sent at its due time, i / rate seconds after the start, whatever the answers' pace,
   * over a pool of keep-alive connections, and its latency counts from that due time (so a late send or a wait
   * for a free connection is in it). Unset: closed loop, each connection sends as fast as it is answered.
   */
  rate?: number;
}

/** One endpoint: `next` gives each request's path (under the base URL) and JSON body. */
export interface HttpRequest {
  baseUrl: string;
  method: 'GET' | 'POST';
  key: string;
  next: () => { path: string; body?: unknown };
}

/** Rotates through the plans, so concurrent requests hit different plans as they would in use. */
export function roundRobin<T>(items: readonly T[]): () => T {
  let next = 0;
  return () => {
    const item = items[next % items.length] as T;
    next += 1;
    return item;
  };
}

/**
 * Drives one endpoint over HTTP after a one-second warm-up: with `options.rate`, in open loop at that rate
 * (`openLoopLoad`); without, in closed loop with autocannon.
 */
export async function httpLoad(request: HttpRequest, options: LoadOptions): Promise<LoadResult> {
  if (options.rate !== undefined)
    return openLoopLoad(request, { rate: options.rate, seconds: options.seconds });
  const result = await autocannon({
    url: request.baseUrl,
    method: request.method,
    connections: options.connections,
    duration: options.seconds,
    timeout: 10,
    warmup: { connections: options.connections, duration: 1 },
    headers: {
      authorization: `Bearer ${request.key}`,
      ...(request.method === 'POST' ? { 'content-type': 'application/json' } : {}),
    },
    requests: [
      {
        setupRequest: (req) => {
          const { path, body } = request.next();
          return { ...req, path, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
        },
      },
    ],
  });
  const statuses = Object.entries(result.statusCodeStats)
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, { count }]) => `${count}×${status}`);
  if (result.errors > 0) statuses.push(`${result.errors} errors`);
  if (result.timeouts > 0) statuses.push(`${result.timeouts} timeouts`);
  return {
    perSecond: result.requests.average,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    failureDetail: statuses.join(', '),
  };
}

/** Keep-alive connections: at the steady rates a request finds one free; when all are busy it waits in the pool. */
const POOL_CONNECTIONS = 64;
/** A warm-up at the same rate, not measured, runs straight into the measured window. */
const WARM_UP_MS = 1000;
/** After the window, answers still outstanding get this long before they count as timeouts. */
const GRACE_MS = 10_000;
/** The schedule's timer: each tick sends every request whose due time has passed. */
const TICK_MS = 1;

/**
 * Open loop: request i is due at `start + i / rate` seconds and sent at its due time whatever the answers' pace
 * (no request waits for an earlier one's answer); its latency runs from its due time to its answer (body read),
 * so a late send or a wait for a free connection counts in it. One second at the same rate first, not measured.
 * perSecond counts the 2xx answers received within the measured window; latencies and failures are those of the
 * requests due in it, whose answers get up to ten seconds after it before they count as timeouts.
 */
async function openLoopLoad(
  request: HttpRequest,
  options: { rate: number; seconds: number },
): Promise<LoadResult> {
  const { rate, seconds } = options;
  if (!(rate > 0) || !(seconds > 0)) throw new Error('open loop needs a positive rate and duration');
  const pool = new Pool(new URL(request.baseUrl).origin, { connections: POOL_CONNECTIONS, pipelining: 1 });
  const headers: Record<string, string> = {
    authorization: `Bearer ${request.key}`,
    ...(request.method === 'POST' ? { 'content-type': 'application/json' } : {}),
  };
  const intervalMs = 1000 / rate;
  const warmUpCount = Math.round((WARM_UP_MS / 1000) * rate);
  const total = warmUpCount + Math.round(seconds * rate);

  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let errors = 0;
  let answeredInWindow = 0;
  let measuredSettled = 0;
  let outstanding = 0;
  let sent = 0;
  let finished = false;
  let allSettled: () => void = () => {};
  const settled = new Promise<void>((resolve) => {
    allSettled = resolve;
  });

  const start = performance.now();
  const windowStart = start + WARM_UP_MS;
  const windowEnd = windowStart + seconds * 1000;
  const dueAt = (i: number) => start + i * intervalMs;

  const settle = (measured: boolean) => {
    outstanding -= 1;
    if (measured) measuredSettled += 1;
    if (sent === total && outstanding === 0) allSettled();
  };

  const send = (i: number) => {
    const due = dueAt(i);
    const measured = i >= warmUpCount;
    const { path, body } = request.next();
    outstanding += 1;
    pool
      .request({
        method: request.method,
        path,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      .then(async ({ statusCode, body: responseBody }) => {
        await responseBody.text();
        const answered = performance.now();
        if (finished) return;
        const ok = statusCode >= 200 && statusCode < 300;
        if (ok && answered >= windowStart && answered < windowEnd) answeredInWindow += 1;
        if (measured) {
          if (ok) latencies.push(answered - due);
          else statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
        }
        settle(measured);
      })
      .catch(() => {
        if (finished) return;
        if (measured) errors += 1;
        settle(measured);
      });
  };

  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && dueAt(sent) <= now) {
        send(sent);
        sent += 1;
      }
      if (sent === total) {
        clearInterval(timer);
        resolve();
      }
    };
    const timer = setInterval(tick, TICK_MS);
    tick();
  });
  if (outstanding === 0) allSettled();

  // The window ends one interval after the last request is due; what is still outstanding GRACE_MS later is a
  // timeout.
  let graceTimer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<void>((resolve) => {
    graceTimer = setTimeout(resolve, Math.max(0, windowEnd + GRACE_MS - performance.now()));
  });
  await Promise.race([settled, graceOver]);
  clearTimeout(graceTimer);
  finished = true;
  const timeouts = total - warmUpCount - measuredSettled;
  await pool.destroy().catch(() => {});

  latencies.sort((a, b) => a - b);
  const non2xx = [...statuses.values()].reduce((sum, count) => sum + count, 0);
  const detail = [...statuses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${count}×${status}`);
  if (errors > 0) detail.push(`${errors} errors`);
  if (timeouts > 0) detail.push(`${timeouts} timeouts`);
  return {
    perSecond: answeredInWindow / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    p999Ms: percentile(latencies, 99.9),
    failures: non2xx + errors + timeouts,
    failureDetail: detail.join(', '),
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** The same payment transaction with no HTTP: `connections` loops calling recordPayment for `seconds`. */
export async function directPayments(
  env: { DATA_DIR: string; DATABASE_URL?: string },
  ref: TenantRef,
  nextTrackId: () => string,
  options: LoadOptions,
): Promise<LoadResult> {
  const config = loadConfig({ ...env, LOG_LEVEL: 'warn' });
  const handle = openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  const ctx = createContext({ config, db: handle.db, dialect: handle.dialect });
  const tenant = { ...ref, clock: systemClock };
  const latencies: number[] = [];
  let failures = 0;
  let firstFailure = '';
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: options.connections }, async () => {
        while (performance.now() < deadline) {
          const begun = performance.now();
          try {
            await recordPayment(ctx, tenant, { trackId: nextTrackId(), amount: 1, method: 'cash' });
            latencies.push(performance.now() - begun);
          } catch (error) {
            failures += 1;
            firstFailure ||= error instanceof Error ? error.message : String(error);
          }
        }
      }),
    );
  } finally {
    await handle.close();
  }
  const elapsedSeconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / elapsedSeconds,
    p99Ms: percentile(latencies, 99),
    failures,
    failureDetail: failures > 0 ? `${failures} failed, first: ${firstFailure}` : '',
  };
}
