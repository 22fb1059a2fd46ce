import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { percentile } from './load.js';

/** The first retry of a failed delivery is due this long after the failed attempt (webhooks.job.ts). */
const FIRST_RETRY_MS = 5_000;

interface Received {
  /** Receipt times of each attempt, in ms since the epoch. */
  attempts: number[];
}

export interface WebhookReceiver {
  url: string;
  received: Map<string, Received>;
  close(): Promise<void>;
}

/** Whether the first attempt of this event is answered 503, to measure retries: one event in `every`. */
function failsFirst(eventId: string, every: number): boolean {
  return createHash('sha256').update(eventId).digest().readUInt32BE(0) % every === 0;
}

/** A receiver on loopback that records when each attempt of each event arrived; it fails some first attempts. */
export async function startWebhookReceiver(failOneIn: number): Promise<WebhookReceiver> {
  const received = new Map<string, Received>();
  const server = http.createServer((req, res) => {
    const at = Date.now();
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? '');
      const entry = received.get(id) ?? { attempts: [] };
      entry.attempts.push(at);
      received.set(id, entry);
      res.statusCode = entry.attempts.length === 1 && failsFirst(id, failOneIn) ? 503 : 204;
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface WebhookFigures {
  events: number;
  delivered: number;
  firstAttemptP50Ms: number;
  firstAttemptP99Ms: number;
  retries: number;
  retryLateP50Ms: number;
  retryLateMaxMs: number;
  waitedAfterLoadMs: number;
}

/**
 * Waits (up to `maxWaitMs`) until every event of the workspace since `since` has reached the receiver and every failed first
 * attempt has been retried, then measures: event to first attempt, and how late each retry went out after it
 * was due.
 */
export async function webhookFigures(
  env: { DATA_DIR: string; DATABASE_URL?: string },
  workspaceId: string,
  /** When the endpoint was created: it receives the events from then on. */
  since: string,
  receiver: WebhookReceiver,
  failOneIn: number,
  maxWaitMs: number,
): Promise<WebhookFigures> {
  const config = loadConfig({ ...env, LOG_LEVEL: 'warn' });
  const handle = openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, poolSize: 1 });
  const started = Date.now();
  try {
    let events: { id: string; created_at: string }[] = [];
    for (;;) {
      events = await handle.db
        .selectFrom('events')
        .select(['id', 'created_at'])
        .where('workspace_id', '=', workspaceId)
        .where('created_at', '>=', since)
        .execute();
      const waiting = events.filter((event) => {
        const got = receiver.received.get(event.id);
        return !got || (failsFirst(event.id, failOneIn) && got.attempts.length < 2);
      });
      if (waiting.length === 0 || Date.now() - started > maxWaitMs) break;
      await sleep(200);
    }
    const firstAttempt: number[] = [];
    const late: number[] = [];
    for (const event of events) {
      const got = receiver.received.get(event.id);
      if (!got) continue;
      const [first, second] = got.attempts;
      if (first === undefined) continue;
      firstAttempt.push(first - Date.parse(event.created_at));
      if (second !== undefined) late.push(second - (first + FIRST_RETRY_MS));
    }
    firstAttempt.sort((a, b) => a - b);
    late.sort((a, b) => a - b);
    return {
      events: events.length,
      delivered: events.filter((event) => receiver.received.has(event.id)).length,
      firstAttemptP50Ms: percentile(firstAttempt, 50),
      firstAttemptP99Ms: percentile(firstAttempt, 99),
      retries: late.length,
      retryLateP50Ms: percentile(late, 50),
      retryLateMaxMs: late.at(-1) ?? 0,
      waitedAfterLoadMs: Date.now() - started,
    };
  } finally {
    await handle.close();
  }
}
