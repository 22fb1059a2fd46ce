/**
 * `npm run test:crash`: kills the real server (SIGKILL) while 32 clients record payments, half of them with an
 * Idempotency-Key each, restarts it, re-sends every keyed request that got no answer with its key and body
 * (one without a key is not sent again: it may have been recorded), and checks: no acknowledged payment lost,
 * every re-sent request answered 201, no payment twice, every balance exact. 10 cycles on each database. On
 * PostgreSQL the two kinds take different paths: a payment without a key sends its last statement with the
 * commit, a keyed one commits after its response is kept.
 * Env: CRASH_CYCLES (10), CRASH_DATABASES (postgres,sqlite), CRASH_PG_URL (postgres://postgres@127.0.0.1:5432/).
 */
import { randomBytes, randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type DatabaseKind, prepareDatabase } from '../../bench/databases.js';
import {
  apiCall,
  buildProject,
  freePort,
  issueTestKey,
  killChildren,
  type Server,
  serverEnv,
  startServer,
} from '../../bench/processes.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';

const CLIENTS = 32;
const PLANS = 16;
const PLAN_AMOUNT = 1_000_000_000_000;
const cycles = Number(process.env.CRASH_CYCLES || 10);
const kinds = (process.env.CRASH_DATABASES || 'postgres,sqlite')
  .split(',')
  .map((k) => k.trim()) as DatabaseKind[];
const pgServerUrl = process.env.CRASH_PG_URL || 'postgres://postgres@127.0.0.1:5432/';

const log = (line: string) => process.stderr.write(`crash: ${line}\n`);

setTimeout(
  () => {
    log('time limit reached; stopping');
    killChildren();
    process.exit(1);
  },
  (120 + kinds.length * cycles * 30) * 1000,
).unref();

interface Sent {
  key: string;
  /** Sent with the key as its Idempotency-Key; without, the key is only in the metadata. */
  keyed: boolean;
  body: { trackId: string; amount: number; method: string; metadata: { idem: string } };
}

type Answer =
  | { kind: 'created'; id: string; replayed: boolean }
  | { kind: 'cut' }
  | { kind: 'other'; text: string };

async function post(baseUrl: string, apiKey: string, sent: Sent): Promise<Answer> {
  try {
    const response = await fetch(`${baseUrl}/api/v1/payments`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        ...(sent.keyed ? { 'idempotency-key': sent.key } : {}),
      },
      body: JSON.stringify(sent.body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (response.status !== 201) return { kind: 'other', text: `${response.status} ${text.slice(0, 200)}` };
    return {
      kind: 'created',
      id: (JSON.parse(text) as { data: { id: string } }).data.id,
      replayed: response.headers.get('idempotent-replayed') === 'true',
    };
  } catch {
    return { kind: 'cut' };
  }
}

interface Tally {
  acknowledged: Map<string, string>;
  cut: number;
  /** Requests without a key that got no answer: not sent again. */
  cutUnkeyed: number;
  resent: number;
  resentReplayed: number;
  problems: string[];
}

async function setUp(server: Server, env: NodeJS.ProcessEnv) {
  const { key } = await issueTestKey(env, 'Crash');
  const call = (path: string, body: unknown) =>
    apiCall<{ id: string }>(server.baseUrl, key, 'POST', path, body).then((data) => data.id);
  const customerId = await call('/customers', { name: 'Crash', phone: '+2348031234567' });
  const plans: string[] = [];
  for (let i = 0; i < PLANS; i++) {
    plans.push(await call('/tracks', { customerId, title: `Crash plan ${i}`, amount: PLAN_AMOUNT }));
  }
  return { apiKey: key, plans };
}

/** One cycle: load, SIGKILL at a random moment, restart, re-send what got no answer. */
async function cycle(
  n: number,
  server: Server,
  restart: () => Promise<Server>,
  apiKey: string,
  plans: string[],
  tally: Tally,
): Promise<Server> {
  const cut: Sent[] = [];
  let dead = false;
  let sent = 0;
  const clients = Array.from({ length: CLIENTS }, async (_, client) => {
    while (!dead) {
      const key = `crash-${n}-${client}-${sent++}-${randomBytes(4).toString('hex')}`;
      const request: Sent = {
        key,
        keyed: client % 2 === 0,
        body: {
          trackId: plans[randomInt(plans.length)] as string,
          amount: randomInt(1, 1000),
          method: 'cash',
          metadata: { idem: key },
        },
      };
      const answer = await post(server.baseUrl, apiKey, request);
      if (answer.kind === 'created') tally.acknowledged.set(key, answer.id);
      else if (answer.kind === 'cut') {
        if (request.keyed) cut.push(request);
        else tally.cutUnkeyed += 1;
        return;
      } else tally.problems.push(`cycle ${n}: ${key} answered ${answer.text}`);
    }
  });
  await sleep(1_000 + randomInt(2_000));
  dead = true;
  await server.kill();
  await Promise.all(clients);
  const next = await restart();

  tally.cut += cut.length;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let request = cut.pop(); request; request = cut.pop()) {
        const answer = await post(next.baseUrl, apiKey, request);
        tally.resent += 1;
        if (answer.kind !== 'created') {
          tally.problems.push(
            `cycle ${n}: re-sent ${request.key} answered ${answer.kind === 'other' ? answer.text : 'nothing'}`,
          );
          continue;
        }
        if (answer.replayed) tally.resentReplayed += 1;
        tally.acknowledged.set(request.key, answer.id);
      }
    }),
  );
  return next;
}

async function verify(env: { DATA_DIR: string; DATABASE_URL?: string }, tally: Tally, plans: string[]) {
  const config = loadConfig({ ...env, LOG_LEVEL: 'warn' });
  const handle = openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, poolSize: 2 });
  try {
    const payments = await handle.db
      .selectFrom('payments')
      .select(['id', 'track_id', 'amount', 'metadata'])
      .where('track_id', 'in', plans)
      .execute();
    const byKey = new Map<string, string[]>();
    for (const payment of payments) {
      const key = (JSON.parse(payment.metadata) as { idem?: string }).idem ?? '';
      byKey.set(key, [...(byKey.get(key) ?? []), payment.id]);
    }
    const ids = new Set(payments.map((p) => p.id));
    const lost = [...tally.acknowledged].filter(([, id]) => !ids.has(id));
    const duplicates = [...byKey].filter(([, list]) => list.length > 1);
    const mismatched = [...tally.acknowledged].filter(([key, id]) => byKey.get(key)?.[0] !== id);

    const tracks = await handle.db
      .selectFrom('tracks')
      .select(['id', 'amount', 'balance'])
      .where('id', 'in', plans)
      .execute();
    const ledger = await handle.db
      .selectFrom('ledger_entries')
      .select(['track_id', 'amount'])
      .where('track_id', 'in', plans)
      .execute();
    const badBalances = tracks.filter((track) => {
      const paid = payments.filter((p) => p.track_id === track.id).reduce((sum, p) => sum + p.amount, 0);
      const ledgerSum = ledger.filter((e) => e.track_id === track.id).reduce((sum, e) => sum + e.amount, 0);
      return track.balance !== track.amount - paid || ledgerSum !== track.balance;
    });
    return { payments: payments.length, lost, duplicates, mismatched, badBalances };
  } finally {
    await handle.close();
  }
}

async function crashDatabase(kind: DatabaseKind): Promise<string[]> {
  const database = await prepareDatabase(kind, pgServerUrl, 'paytrack_crash');
  const port = await freePort();
  const env = serverEnv(database.env, port);
  const tally: Tally = {
    acknowledged: new Map(),
    cut: 0,
    cutUnkeyed: 0,
    resent: 0,
    resentReplayed: 0,
    problems: [],
  };
  let server = await startServer(env, port);
  try {
    const { apiKey, plans } = await setUp(server, env);
    for (let n = 1; n <= cycles; n++) {
      server = await cycle(n, server, () => startServer(env, port), apiKey, plans, tally);
      log(`${kind}: cycle ${n}/${cycles}: ${tally.acknowledged.size} acknowledged so far, ${tally.cut} cut`);
    }
    await server.stop();
    const result = await verify(database.env, tally, plans);
    const problems = [...tally.problems];
    if (result.lost.length > 0) problems.push(`${result.lost.length} acknowledged payments lost`);
    if (result.duplicates.length > 0)
      problems.push(`${result.duplicates.length} keys recorded more than once`);
    if (result.mismatched.length > 0)
      problems.push(`${result.mismatched.length} keys answered with another id`);
    if (result.badBalances.length > 0)
      problems.push(`${result.badBalances.length} plans with a wrong balance`);
    console.log(
      `${kind}: ${cycles} SIGKILL cycles, ${CLIENTS} clients: ${tally.acknowledged.size} payments acknowledged ` +
        `(${result.payments} recorded), ${tally.cut} keyed requests cut and re-sent (${tally.resentReplayed} replayed, ` +
        `${tally.resent - tally.resentReplayed} run on re-send), ${tally.cutUnkeyed} without a key cut and not ` +
        `re-sent; lost ${result.lost.length}, ` +
        `re-sent not answered 201: ${tally.problems.filter((p) => p.includes('re-sent')).length}, ` +
        `duplicates ${result.duplicates.length}, wrong balances ${result.badBalances.length}`,
    );
    return problems.map((problem) => `${kind}: ${problem}`);
  } finally {
    await server.kill().catch(() => undefined);
    await database.drop();
  }
}

buildProject(log);

const problems: string[] = [];
for (const kind of kinds) {
  try {
    problems.push(...(await crashDatabase(kind)));
  } catch (error) {
    problems.push(`${kind}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
}
if (problems.length > 0) {
  console.log(`\nProblems (${problems.length}):\n  ${problems.slice(0, 30).join('\n  ')}`);
  process.exitCode = 1;
} else {
  console.log('crash test passed');
}
