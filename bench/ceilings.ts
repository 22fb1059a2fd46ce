import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase, sqlitePath } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { httpLoad, type LoadOptions, type LoadResult } from './load.js';
import { freePort } from './processes.js';

/**
 * What the machine can do without paytrack, measured in the same run as paytrack itself: the payment's
 * durable transaction (debit the plan, insert the payment, its ledger entry and its event) straight on the
 * database, and a bare Fastify route answering the same JSON body as GET /tracks/{id}.
 */

export interface CeilingPlan {
  id: string;
  customerId: string;
  currency: string;
}

const SCHEMA = 'ceiling';
/** About the size of a real `payment.created` event's data. */
const EVENT_DATA = JSON.stringify({
  object: {
    id: 'pay_0000000000000000000000000',
    object: 'payment',
    trackId: 'trk_0000000000000000000000000',
    customerId: 'cus_0000000000000000000000000',
    amount: 1,
    currency: 'NGN',
    method: 'cash',
    status: 'recorded',
    paidAt: '2026-01-01T00:00:00.000Z',
    reference: null,
    metadata: {},
    allocations: [],
    createdAt: '2026-01-01T00:00:00.000Z',
  },
});

/**
 * The four statements of one payment, with `$now` for the time, `$id:<prefix>` for a new id and `$data` for the
 * event's data (a bound parameter: pgbench would read the colons of JSON text as variables).
 */
function paymentStatements(
  workspaceId: string,
  plan: CeilingPlan,
  table: (name: string) => string,
): string[] {
  const ws = `'${workspaceId}'`;
  const trk = `'${plan.id}'`;
  const cus = `'${plan.customerId}'`;
  const cur = `'${plan.currency}'`;
  return [
    `update ${table('tracks')} set amount_paid = amount_paid + 1, balance = balance - 1, status = case when balance - 1 = 0 then 'completed' else 'active' end, updated_at = $now where id = ${trk} and workspace_id = ${ws} and mode = 'test' and status = 'active' and balance - 1 >= 0 returning *`,
    `insert into ${table('payments')} (id, workspace_id, mode, track_id, customer_id, amount, currency, method, status, paid_at, source, metadata, created_at, allocations) values ($id:pay, ${ws}, 'test', ${trk}, ${cus}, 1, ${cur}, 'cash', 'recorded', $now, 'api', '{}', $now, '[]')`,
    `insert into ${table('ledger_entries')} (id, workspace_id, mode, type, track_id, customer_id, amount, balance_after, currency, occurred_at, refs, created_at) values ($id:led, ${ws}, 'test', 'payment.recorded', ${trk}, ${cus}, -1, 0, ${cur}, $now, '{}', $now)`,
    `insert into ${table('events')} (id, workspace_id, mode, type, data, created_at) values ($id:evt, ${ws}, 'test', 'payment.created', $data, $now)`,
  ];
}

/** The tables the payment's statements write, whose indexes the index-cost step drops one at a time. */
export const PAYMENT_TABLES = ['tracks', 'payments', 'ledger_entries', 'events'] as const;

/** The secondary indexes of the payment's tables in paytrack's schema on the bench's database (primary keys left out). */
export async function paymentIndexes(env: { DATA_DIR: string; DATABASE_URL?: string }): Promise<string[]> {
  const handle = openDatabase({ dataDir: env.DATA_DIR, databaseUrl: env.DATABASE_URL, poolSize: 1 });
  try {
    const tables = sql.join(PAYMENT_TABLES.map((table) => sql.lit(table)));
    const rows =
      handle.dialect === 'postgres'
        ? await sql<{
            name: string;
          }>`select indexname as name from pg_indexes where schemaname = 'public' and tablename in (${tables}) and indexname not in (select conname from pg_constraint where contype = 'p') order by tablename, indexname`.execute(
            handle.db,
          )
        : await sql<{
            name: string;
          }>`select name from sqlite_master where type = 'index' and sql is not null and tbl_name in (${tables}) order by tbl_name, name`.execute(
            handle.db,
          );
    return rows.rows.map((row) => row.name);
  } finally {
    await handle.close();
  }
}

/** The bench workspace's rows a payment needs (it, its customers and plans), copied into a fresh copy of the schema. */
const COPIED_TABLES = ['workspaces', 'customers', 'tracks'] as const;

/**
 * What the four statements run on: `schema`, a copy of paytrack's own schema (its indexes, markers, wide rows and
 * foreign keys: a diagnostic of what the schema costs); `lean`, the physical ceiling: each table only the columns
 * the statements write and its primary key, no other index, no foreign key.
 */
export type CeilingShape = 'lean' | 'schema';

/** The lean tables, in a dialect's types (`instant`, `money`), and the plan columns copied into them. */
function leanTables(instant: string, money: string): string[] {
  return [
    `create table tracks (id text primary key, workspace_id text not null, mode text not null, amount_paid ${money} not null, balance ${money} not null, status text not null, updated_at ${instant} not null)`,
    `create table payments (id text primary key, workspace_id text not null, mode text not null, track_id text, customer_id text, amount ${money} not null, currency text not null, method text not null, status text not null, paid_at ${instant} not null, source text not null, metadata text not null, created_at ${instant} not null, allocations text not null)`,
    `create table ledger_entries (id text primary key, workspace_id text not null, mode text not null, type text not null, track_id text, customer_id text, amount ${money} not null, balance_after ${money}, currency text not null, occurred_at ${instant} not null, refs text not null, created_at ${instant} not null)`,
    `create table events (id text primary key, workspace_id text not null, mode text not null, type text not null, data text not null, created_at ${instant} not null)`,
  ];
}
const LEAN_TRACK_COLUMNS = 'id, workspace_id, mode, amount_paid, balance, status, updated_at';

function scriptDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'paytrack-ceiling-'));
}

/**
 * pgbench, `connections` clients, one script per plan (pgbench picks one at random for each transaction), on
 * the lean tables or a schema migrated like paytrack's own (`shape`), with the bench workspace's plans copied in.
 */
export async function pgbenchCeiling(
  databaseUrl: string,
  workspaceId: string,
  plans: CeilingPlan[],
  options: LoadOptions,
  shape: CeilingShape,
  without: string | null = null,
): Promise<LoadResult> {
  const scratch = openDatabase({ dataDir: os.tmpdir(), databaseUrl, poolSize: 1 });
  try {
    await sql`drop schema if exists ${sql.id(SCHEMA)} cascade`.execute(scratch.db);
    await sql`create schema ${sql.id(SCHEMA)}`.execute(scratch.db);
  } finally {
    await scratch.close();
  }
  const inSchema = openDatabase({ dataDir: os.tmpdir(), databaseUrl, schema: SCHEMA, poolSize: 1 });
  try {
    if (shape === 'lean') {
      for (const ddl of leanTables('timestamptz', 'bigint')) await sql.raw(ddl).execute(inSchema.db);
      await sql`insert into ${sql.id(SCHEMA, 'tracks')} select ${sql.raw(LEAN_TRACK_COLUMNS)} from ${sql.id('public', 'tracks')} where workspace_id = ${workspaceId}`.execute(
        inSchema.db,
      );
    } else await migrateToLatest(inSchema.db, 'postgres');
    if (without) await sql`drop index ${sql.id(SCHEMA, without)}`.execute(inSchema.db);
    for (const table of shape === 'lean' ? [] : COPIED_TABLES) {
      const key = table === 'workspaces' ? 'id' : 'workspace_id';
      await sql`insert into ${sql.id(SCHEMA, table)} select * from ${sql.id('public', table)} where ${sql.ref(key)} = ${workspaceId}`.execute(
        inSchema.db,
      );
    }
  } finally {
    await inSchema.close();
  }

  const dir = scriptDir();
  try {
    const files = plans.map((plan, i) => {
      const statements = paymentStatements(workspaceId, plan, (name) => `${SCHEMA}.${name}`).map((s) =>
        s
          .replaceAll('$now', 'now()')
          .replaceAll('$data', ':event_data')
          .replace(/\$id:(\w+)/g, "'$1_' || md5(random()::text)"),
      );
      const file = path.join(dir, `payment-${i}.sql`);
      fs.writeFileSync(file, `begin;\n${statements.join(';\n')};\ncommit;\n`);
      return file;
    });
    const threads = Math.min(options.connections, os.cpus().length);
    const run = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(
        'pgbench',
        [
          '--no-vacuum',
          '--protocol=prepared',
          `--client=${options.connections}`,
          `--jobs=${threads}`,
          `--time=${options.seconds}`,
          `--define=event_data=${EVENT_DATA}`,
          ...files.flatMap((file) => ['--file', file]),
          databaseUrl,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
      });
      child.stderr.on('data', (chunk) => {
        output += chunk;
      });
      child.once('exit', (code) => resolve({ code, output }));
      child.once('error', (error) => resolve({ code: -1, output: String(error) }));
    });
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(run.output)?.[1];
    const latency = /latency average = ([\d.]+) ms/.exec(run.output)?.[1];
    const failed = /number of failed transactions: (\d+)/.exec(run.output)?.[1];
    if (run.code !== 0 || !tps) throw new Error(`pgbench failed (${run.code}):\n${run.output.slice(-2_000)}`);
    return {
      perSecond: Number(tps),
      // pgbench reports the mean; it stands in for the p99 column.
      p99Ms: Number(latency ?? 0),
      failures: Number(failed ?? 0),
      failureDetail: failed && failed !== '0' ? `${failed} failed transactions` : '',
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    const cleanup = openDatabase({ dataDir: os.tmpdir(), databaseUrl, poolSize: 1 });
    await sql`drop schema if exists ${sql.id(SCHEMA)} cascade`.execute(cleanup.db);
    await cleanup.close();
  }
}

/**
 * The same transaction in a better-sqlite3 loop: WAL, synchronous=FULL, statements prepared once, one durable
 * commit per payment, on a fresh file of the lean tables or migrated like paytrack's (`shape`), with the bench
 * workspace's plans copied in.
 */
export async function sqliteLoopCeiling(
  dataDir: string,
  workspaceId: string,
  plans: CeilingPlan[],
  options: LoadOptions,
  shape: CeilingShape,
  without: string | null = null,
): Promise<LoadResult> {
  const dir = scriptDir();
  try {
    if (shape === 'schema') {
      const migrated = openDatabase({ dataDir: dir, databaseUrl: undefined });
      await migrateToLatest(migrated.db, 'sqlite');
      await migrated.close();
    }
    const db = new BetterSqlite3(sqlitePath(dir));
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      db.prepare('attach database ? as bench').run(sqlitePath(dataDir));
      if (without) db.exec(`drop index "${without}"`);
      if (shape === 'lean') {
        for (const ddl of leanTables('text', 'integer')) db.exec(ddl);
        db.prepare(
          `insert into main.tracks select ${LEAN_TRACK_COLUMNS} from bench.tracks where workspace_id = ?`,
        ).run(workspaceId);
      }
      for (const table of shape === 'lean' ? [] : COPIED_TABLES) {
        const key = table === 'workspaces' ? 'id' : 'workspace_id';
        db.prepare(`insert into main.${table} select * from bench.${table} where ${key} = ?`).run(
          workspaceId,
        );
      }
      db.prepare('detach database bench').run();
      const prepared = plans.map((plan) =>
        paymentStatements(workspaceId, plan, (name) => name).map((text) => {
          const ids = [...text.matchAll(/\$id:(\w+)/g)].map((match) => match[1] as string);
          const statement = db.prepare(
            text
              .replaceAll('$now', '@now')
              .replaceAll('$data', '@data')
              .replace(/\$id:(\w+)/g, '@$1'),
          );
          return { statement, ids, returns: statement.reader };
        }),
      );
      const begin = db.prepare('begin immediate');
      const commit = db.prepare('commit');
      const latencies: number[] = [];
      const started = performance.now();
      const deadline = started + options.seconds * 1000;
      let next = 0;
      let yielded = started;
      while (performance.now() < deadline) {
        const begun = performance.now();
        // The loop is synchronous: without a turn of the event loop now and then, this process reads none of
        // its sockets for the whole run, and a keep-alive connection the server closed meanwhile looks open to
        // the next request ("fetch failed").
        if (begun - yielded > YIELD_EVERY_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          yielded = performance.now();
          continue;
        }
        const statements = prepared[next++ % prepared.length] ?? [];
        const now = new Date().toISOString();
        begin.run();
        for (const { statement, ids, returns } of statements) {
          const params: Record<string, string> = { now, data: EVENT_DATA };
          for (const prefix of ids) params[prefix] = `${prefix}_${randomUUID()}`;
          if (returns) statement.all(params);
          else statement.run(params);
        }
        commit.run();
        latencies.push(performance.now() - begun);
      }
      const elapsed = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      return {
        perSecond: latencies.length / elapsed,
        p99Ms: latencies[Math.ceil(latencies.length * 0.99) - 1] ?? 0,
        failures: 0,
        failureDetail: '',
      };
    } finally {
      db.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** How long the SQLite loop runs before it lets this process's event loop turn. */
const YIELD_EVERY_MS = 100;

const BARE_ROUTE = fileURLToPath(new URL('./bare-route.ts', import.meta.url));

/** A bare Fastify server in its own process answering GET /api/v1/tracks/:id with `body`, loaded like paytrack. */
export async function bareRouteCeiling(body: string, key: string, options: LoadOptions): Promise<LoadResult> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', BARE_ROUTE], {
    env: { PATH: process.env.PATH, PORT: String(port), BODY: body },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`the bare route exited with ${code}`)));
    });
    return await httpLoad(
      {
        baseUrl: `http://127.0.0.1:${port}`,
        method: 'GET',
        key,
        next: () => ({ path: '/api/v1/tracks/trk_bare' }),
      },
      options,
    );
  } finally {
    child.kill('SIGTERM');
  }
}

/** pgbench is needed for the PostgreSQL ceiling; its absence is a failed step, said plainly. */
export function hasPgbench(): boolean {
  return spawnSync('pgbench', ['--version']).status === 0;
}
