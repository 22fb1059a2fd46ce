/**
 * The built server (`node dist/main.js serve`) on a free port of loopback, on an empty database of its own, in
 * real time: nothing here freezes or moves a clock but the API's own test clock. `npm run test:realtime` builds
 * first. Env: REALTIME_DATABASES (sqlite,postgres), REALTIME_PG_URL (postgres://postgres@127.0.0.1:5432/).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Temporal } from 'temporal-polyfill';
import { type BenchDatabase, type DatabaseKind, prepareDatabase } from '../../bench/databases.js';
import { freePort, issueTestKey, type Server, serverEnv, startServer } from '../../bench/processes.js';

export const databaseKinds = (process.env.REALTIME_DATABASES || 'sqlite,postgres')
  .split(',')
  .map((kind) => kind.trim())
  .filter((kind) => kind !== '') as DatabaseKind[];

export const pgServerUrl = process.env.REALTIME_PG_URL || 'postgres://postgres@127.0.0.1:5432/';

export interface Answer<T = any> {
  status: number;
  body: T;
}

/** An API client bound to one key, over real HTTP. */
export interface Api {
  get(path: string): Promise<Answer>;
  post(path: string, body?: unknown): Promise<Answer>;
  patch(path: string, body: unknown): Promise<Answer>;
}

export interface RealServer {
  kind: DatabaseKind;
  baseUrl: string;
  /** The test key `serve` printed on its first start, for the workspace it created. */
  firstKey: string;
  api(key: string): Api;
  /** A workspace and an all-scopes test key made by the command line, as an operator would. */
  newWorkspace(name: string, timezone: string): Promise<Api>;
  /** The server's output so far (its end), for failure messages. */
  output(): string;
  /** The environment the server runs with: the command line, given it, works on the same database. */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

function client(baseUrl: string, key: string): Api {
  async function call(method: string, path: string, body?: unknown): Promise<Answer> {
    const response = await fetch(`${baseUrl}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(120_000),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed };
  }
  return {
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
    patch: (path, body) => call('PATCH', path, body),
  };
}

/** Waits for the key the first start prints (after it listens, so after /health may already answer). */
async function printedKey(server: Server): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = /\b(pt_test_[A-Za-z0-9_-]+)/.exec(server.output());
    if (found?.[1]) return found[1];
    if (Date.now() > deadline) throw new Error(`serve printed no test key within 30 s:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts the built server on an empty database of `kind` (a new PostgreSQL database, dropped by `stop`). */
export async function startRealServer(
  kind: DatabaseKind,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<RealServer> {
  const database: BenchDatabase = await prepareDatabase(
    kind,
    pgServerUrl,
    `paytrack_realtime_${randomBytes(4).toString('hex')}`,
  );
  // A free port can be taken by another test's process before the server binds it; the server then exits
  // (while /health may answer from that other process), and a start on another port prints the key.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const env = serverEnv(database.env, port, {
      PUBLIC_URL: baseUrl,
      // The webhook receiver of the tests listens on loopback.
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ...extraEnv,
    });
    let server: Server;
    let firstKey: string;
    try {
      server = await startServer(env, port);
      firstKey = await printedKey(server);
    } catch (error) {
      if (attempt < PORT_ATTEMPTS && String(error).includes('the address is in use')) continue;
      await database.drop();
      throw error;
    }
    return realServer(kind, database, server, env, baseUrl, firstKey);
  }
}

/** Tries of a start whose free port another process took first. */
const PORT_ATTEMPTS = 3;

function realServer(
  kind: DatabaseKind,
  database: BenchDatabase,
  server: Server,
  env: NodeJS.ProcessEnv,
  baseUrl: string,
  firstKey: string,
): RealServer {
  return {
    kind,
    baseUrl,
    firstKey,
    api: (key) => client(baseUrl, key),
    async newWorkspace(name, timezone) {
      const { key } = await issueTestKey(env, name, ['--timezone', timezone]);
      return client(baseUrl, key);
    },
    output: () => server.output(),
    env,
    async stop() {
      try {
        await server.stop();
      } finally {
        await database.drop();
      }
    },
  };
}

/** A call that must answer `status`; its `data`. */
export async function expect(answer: Promise<Answer>, status: number): Promise<any> {
  const { status: got, body } = await answer;
  assert.equal(got, status, JSON.stringify(body));
  return body.data;
}

/** The workspace's time zone and its test clock's time, as the API gives them. */
export async function clockOf(api: Api): Promise<{ timezone: string; now: string }> {
  const account = await expect(api.get('/account'), 200);
  const clock = await expect(api.get('/account/test-clock'), 200);
  return { timezone: account.workspace.timezone, now: clock.now };
}

/** The calendar date of an instant in a time zone, `days` later. */
export function dateIn(instant: string, timezone: string, days = 0): string {
  return Temporal.Instant.from(instant).toZonedDateTimeISO(timezone).toPlainDate().add({ days }).toString();
}

/** A date `months` later (month ends clamped, as schedules do). */
export function addMonths(date: string, months: number): string {
  return Temporal.PlainDate.from(date).add({ months }).toString();
}

/** An instant: `date` at `time` (HH:MM) local time in a zone, as the API writes instants. */
export function localInstant(date: string, timezone: string, time = '00:00'): string {
  const zoned = Temporal.PlainDate.from(date).toZonedDateTime({
    timeZone: timezone,
    plainTime: Temporal.PlainTime.from(time),
  });
  return new Date(zoned.epochMilliseconds).toISOString();
}

/** An instant `days` (fractions allowed) after another. */
export function later(instant: string, days: number): string {
  return new Date(Date.parse(instant) + days * 86_400_000).toISOString();
}

/** Approves a mandate on its consent page as its payer would: the page, its form token, the approve button. */
export async function approveOnConsentPage(consentUrl: string): Promise<void> {
  const page = await fetch(consentUrl, { signal: AbortSignal.timeout(30_000) });
  const html = await page.text();
  assert.equal(page.status, 200, html);
  const token = /name="form_token" value="([^"]+)"/.exec(html)?.[1];
  assert.ok(token, 'the consent page has a form token');
  const answered = await fetch(consentUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ decision: 'approve', form_token: token }).toString(),
    signal: AbortSignal.timeout(30_000),
  });
  assert.equal(answered.status, 200, await answered.text());
}

/** Polls `read` until it gives a value, or fails saying what did not happen, with the server's output. */
export async function until<T>(
  what: string,
  read: () => Promise<T | undefined>,
  server: RealServer,
  ms = 150_000,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`${what} within ${ms / 1000} s\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
