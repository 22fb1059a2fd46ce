import autocannon from 'autocannon';
import { createContext } from '../src/assembly.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { systemClock } from '../src/lib/clock.js';
import type { TenantRef } from '../src/lib/tenant.js';
import { recordPayment } from '../src/modules/payments/payments.service.js';

export interface LoadResult {
  perSecond: number;
  p99Ms: number;
  /** Open-loop runs report these too. */
  p50Ms?: number;
  p999Ms?: number;
  /** Responses other than 2xx, plus connection errors and timeouts. */
  failures: number;
  failureDetail: string;
}

export interface LoadOptions {
  connections: number;
  seconds: number;
  /**
   * Open loop: requests go out at this steady rate whatever the answers' pace, and a late one's wait counts in
   * its latency (autocannon corrects for coordinated omission). Unset: each connection sends as fast as answered.
   */
  rate?: number;
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
 * Drives one endpoint over HTTP with autocannon, after a one-second warm-up; `next` gives each request's
 * path (under the base URL) and JSON body.
 */
export async function httpLoad(
  request: {
    baseUrl: string;
    method: 'GET' | 'POST';
    key: string;
    next: () => { path: string; body?: unknown };
  },
  options: LoadOptions,
): Promise<LoadResult> {
  const result = await autocannon({
    url: request.baseUrl,
    method: request.method,
    connections: options.connections,
    duration: options.seconds,
    timeout: 10,
    ...(options.rate === undefined ? {} : { overallRate: options.rate }),
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
    p50Ms: result.latency.p50,
    p999Ms: result.latency.p99_9,
    failures: result.non2xx + result.errors + result.timeouts,
    failureDetail: statuses.join(', '),
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
