import fs from 'node:fs';
import { sql } from 'kysely';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.js';
import type { AppContext } from '../src/context.js';
import { openDatabase } from '../src/db/database.js';
import type { Db } from '../src/db/schema.js';
import { addDays, startOfDay } from '../src/lib/calendar.js';
import { newId } from '../src/lib/ids.js';
import type { CustomersTable } from '../src/modules/customers/customers.table.js';
import type { LedgerEntriesTable } from '../src/modules/ledger/ledger.table.js';
import type { PaymentsTable } from '../src/modules/payments/payments.table.js';
import { rollupSweep } from '../src/modules/reports/rollups.sweep.js';
import type { ObligationsTable, SchedulesTable } from '../src/modules/schedules/schedules.table.js';
import type { TracksTable } from '../src/modules/tracks/tracks.table.js';
import { apiCall } from './processes.js';

/** The book the reports step measures: 100,000 plans, each with 10 obligations and 10 payments. */
const PLANS = Number(process.env.BENCH_REPORTS_PLANS ?? 100_000);
/** BENCH_REPORTS_PLANS makes it smaller for a quick look; the step's targets are for the full size. */
export const BOOK = {
  plans: PLANS,
  customers: Math.ceil(PLANS / 10),
  obligationsPerPlan: 10,
  paymentsPerPlan: 10,
};
const PLAN_AMOUNT = 1_000_000;
const OBLIGATION_AMOUNT = PLAN_AMOUNT / BOOK.obligationsPerPlan;
const CALLS = 50;
const P99_CEILING_MS = 100;
const EXPORT_RSS_CEILING_MB = 100;
const DAY_MS = 86_400_000;
/** Plans written per transaction. */
const CHUNK = 500;

export interface ReportTiming {
  path: string;
  calls: number;
  p50Ms: number;
  p99Ms: number;
}

export interface ReportsFigures {
  seedSeconds: number;
  foldSeconds: number;
  timings: ReportTiming[];
  exportSeconds: number;
  exportRows: number;
  idleRssMb: number;
  exportPeakRssMb: number;
  problems: string[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The id of the book's customer `n` (named `Customer n`); the plans `n`, `n + customers`, … are theirs. */
export const seededCustomerId = (n: number) => `cus_${String(n).padStart(26, '0')}`;

/** One plan in this many is behind (plan `n` when `n` is a multiple): its payments cover 3 obligations, so 4 past ones are overdue. */
export const BEHIND_EVERY = 20;

/** The rows of plans [from, to): customers as needed, the plan, its schedule, obligations, payments and ledger. */
function bookRows(workspaceId: string, timeZone: string, start: number, from: number, to: number) {
  const tenant = { workspace_id: workspaceId, mode: 'test' as const };
  const rows = {
    customers: [] as CustomersTable[],
    tracks: [] as TracksTable[],
    schedules: [] as SchedulesTable[],
    obligations: [] as ObligationsTable[],
    payments: [] as PaymentsTable[],
    ledger: [] as LedgerEntriesTable[],
  };
  const firstDue = new Date(start).toISOString().slice(0, 10);
  for (let i = from; i < to; i++) {
    const created = start + (i % 1440) * 60_000;
    const customerId = seededCustomerId(i % BOOK.customers);
    if (i < BOOK.customers) {
      rows.customers.push({
        id: customerId,
        ...tenant,
        name: `Customer ${i}`,
        email: null,
        phone: `+2348${String(i).padStart(9, '0')}`,
        notes: null,
        metadata: '{}',
        status: 'active',
        created_at: iso(created),
        updated_at: iso(created),
        archived_at: null,
        opt_outs: '',
        time_zone: null,
      });
    }
    const currency = i % 10 === 0 ? 'USD' : 'NGN';
    const behind = i % BEHIND_EVERY === 0;
    const paymentAmount = ((behind ? 3 : 7) * OBLIGATION_AMOUNT) / BOOK.paymentsPerPlan;
    const paid = paymentAmount * BOOK.paymentsPerPlan;
    const trackId = newId('track', new Date(created));
    const scheduleId = newId('schedule', new Date(created));
    const dues = Array.from({ length: BOOK.obligationsPerPlan }, (_, k) => addDays(firstDue, 30 * k));
    rows.tracks.push({
      id: trackId,
      ...tenant,
      customer_id: customerId,
      title: `Plan ${i}`,
      amount: PLAN_AMOUNT,
      balance: PLAN_AMOUNT - paid,
      amount_paid: paid,
      currency,
      installments: BOOK.obligationsPerPlan,
      status: 'active',
      due_date: dues.at(-1) ?? null,
      metadata: '{}',
      created_at: iso(created),
      updated_at: iso(created),
      archived_at: null,
    });
    rows.schedules.push({
      id: scheduleId,
      ...tenant,
      target_type: 'payment_plan',
      target_id: trackId,
      track_id: trackId,
      frequency: 'installment_sequence',
      interval: null,
      late_fee: null,
      collection_method: 'manual',
      fixed_amount: OBLIGATION_AMOUNT,
      currency,
      timezone: timeZone,
      // Instants, as the API stores them (the start of the first due date in the workspace's zone); an
      // installment_sequence has no end_date.
      start_date: startOfDay(firstDue, timeZone),
      end_date: null,
      status: 'active',
      next_sequence: BOOK.obligationsPerPlan,
      top_up_at: null,
      metadata: '{}',
      virtual_account: null,
      virtual_account_number: null,
      early_settlement_discount: null,
      created_at: iso(created),
      updated_at: iso(created),
    });
    rows.ledger.push({
      id: newId('ledgerEntry', new Date(created)),
      ...tenant,
      type: 'plan.charged',
      track_id: trackId,
      customer_id: customerId,
      amount: PLAN_AMOUNT,
      balance_after: PLAN_AMOUNT,
      currency,
      occurred_at: iso(created),
      refs: '{}',
      created_at: iso(created),
    });
    let left = paid;
    for (const [k, due] of dues.entries()) {
      const part = Math.min(OBLIGATION_AMOUNT, left);
      left -= part;
      const overdueAt = startOfDay(addDays(due, 1), timeZone);
      const status =
        part === OBLIGATION_AMOUNT ? 'paid' : overdueAt <= iso(Date.now()) ? 'overdue' : 'pending';
      rows.obligations.push({
        id: newId('obligation', new Date(created)),
        kind: 'instalment',
        fee_next_at: null,
        fee_of: null,
        fee_period: null,
        ...tenant,
        schedule_id: scheduleId,
        track_id: trackId,
        sequence: k,
        due_date: due,
        amount: OBLIGATION_AMOUNT,
        amount_paid: part,
        currency,
        status,
        overdue_at: overdueAt,
        paid_at: status === 'paid' ? overdueAt : null,
        allocations: '[]',
        collect_at: null,
        remind_stage: null,
        remind_at: null,
        checkout_id: null,
        checkout_url: null,
        checkout_provider: null,
        checkout_provider_reference: null,
        checkout_completed_at: null,
        created_at: iso(created),
        updated_at: iso(created),
      });
    }
    let balance = PLAN_AMOUNT;
    for (let j = 0; j < BOOK.paymentsPerPlan; j++) {
      const paidAt = iso(created + j * 20 * DAY_MS);
      const id = newId('payment', new Date(paidAt));
      balance -= paymentAmount;
      rows.payments.push({
        id,
        ...tenant,
        track_id: trackId,
        customer_id: customerId,
        amount: paymentAmount,
        currency,
        method: j % 2 === 0 ? 'bank_transfer' : 'cash',
        status: 'recorded',
        paid_at: paidAt,
        reference: null,
        reference_key: null,
        source: 'api',
        metadata: '{}',
        created_at: paidAt,
        reversed_at: null,
        reversal_reason: null,
        allocations: '[]',
        unapplied_reason: null,
        split_from: null,
        split_into: null,
        provider: null,
        provider_reference: null,
        refund_status: null,
        refund_provider_reference: null,
        refund_failure_reason: null,
        receipt_number: null,
        receipt_code: null,
        balance_after: null,
      });
      rows.ledger.push({
        id: newId('ledgerEntry', new Date(paidAt)),
        ...tenant,
        type: 'payment.recorded',
        track_id: trackId,
        customer_id: customerId,
        amount: -paymentAmount,
        balance_after: balance,
        currency,
        occurred_at: paidAt,
        refs: JSON.stringify({ paymentId: id }),
        created_at: paidAt,
      });
    }
  }
  return rows;
}

/** Parameters a statement may carry: SQLite allows 32,766, PostgreSQL 65,535. */
const MAX_PARAMETERS = 30_000;

/** Inserts in statements of as many rows as the parameter limit allows. */
async function insertAll<T extends object>(trx: Db, table: string, rows: T[]): Promise<void> {
  const size = Math.max(1, Math.floor(MAX_PARAMETERS / Object.keys(rows[0] ?? { x: 0 }).length));
  for (let i = 0; i < rows.length; i += size) {
    await (trx as any)
      .insertInto(table)
      .values(rows.slice(i, i + size))
      .execute();
  }
}

/** Writes the book straight into the database, a chunk of plans per transaction; returns the seconds it took. */
export async function seedBook(
  env: { DATA_DIR: string; DATABASE_URL?: string },
  workspaceId: string,
  log: (line: string) => void,
) {
  const config = loadConfig({ ...env, LOG_LEVEL: 'warn' });
  const handle = openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, poolSize: 2 });
  const began = Date.now();
  try {
    const { timezone } = await handle.db
      .selectFrom('workspaces')
      .select('timezone')
      .where('id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    const start = Date.now() - 200 * DAY_MS;
    for (let from = 0; from < BOOK.plans; from += CHUNK) {
      const rows = bookRows(workspaceId, timezone, start, from, Math.min(BOOK.plans, from + CHUNK));
      await handle.db.transaction().execute(async (trx) => {
        await insertAll(trx as unknown as Db, 'customers', rows.customers);
        await insertAll(trx as unknown as Db, 'tracks', rows.tracks);
        await insertAll(trx as unknown as Db, 'schedules', rows.schedules);
        await insertAll(trx as unknown as Db, 'obligations', rows.obligations);
        await insertAll(trx as unknown as Db, 'payments', rows.payments);
        await insertAll(trx as unknown as Db, 'ledger_entries', rows.ledger);
      });
      if ((from + CHUNK) % 10_000 === 0) log(`seeded ${from + CHUNK} of ${BOOK.plans} plans`);
    }
    if (handle.dialect === 'postgres') await sql`analyze`.execute(handle.db);
  } finally {
    await handle.close();
  }
  return (Date.now() - began) / 1000;
}

/**
 * Folds the book into the report rollup, as the server's `reports.rollup` sweep does every 10 seconds (run here
 * to the end, so the measured reports find the steady state of a running server); returns the seconds it took.
 */
export async function foldBook(env: { DATA_DIR: string; DATABASE_URL?: string }, workspaceId: string) {
  const config = loadConfig({ ...env, LOG_LEVEL: 'warn' });
  const handle = openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, poolSize: 2 });
  const began = Date.now();
  try {
    const ctx = { db: handle.db, dialect: handle.dialect } as unknown as AppContext;
    const scope = { mode: 'test' as const, now: new Date(), workspaceId };
    while ((await rollupSweep.run(ctx, scope)) > 0);
    // As autovacuum leaves a table at rest: statistics, and the visibility map index-only scans rely on.
    if (handle.dialect === 'postgres') await sql`vacuum analyze`.execute(handle.db);
  } finally {
    await handle.close();
  }
  return (Date.now() - began) / 1000;
}

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

/** One report call, however long it takes (other calls give up after 10 s); its time in ms. */
async function timedGet(agent: Agent, baseUrl: string, key: string, path: string): Promise<number> {
  const began = performance.now();
  const response = await request(`${baseUrl}/api/v1${path}`, {
    dispatcher: agent,
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(300_000),
  }).catch((error: Error) => {
    const seconds = ((performance.now() - began) / 1000).toFixed(1);
    throw new Error(`GET ${path}: ${error.message} after ${seconds} s (${String(error.cause ?? '')})`);
  });
  const text = await response.body.text();
  if (response.statusCode !== 200)
    throw new Error(`GET ${path}: ${response.statusCode} ${text.slice(0, 300)}`);
  return performance.now() - began;
}

/** 50 calls after a warm-up; 5 when one call takes over a second (the figure is then far from the target anyway). */
async function timeCalls(agent: Agent, baseUrl: string, key: string, path: string): Promise<ReportTiming> {
  const warm = await timedGet(agent, baseUrl, key, path);
  const calls = warm > 1_000 ? 5 : CALLS;
  const times: number[] = [];
  for (let i = 0; i < calls; i++) times.push(await timedGet(agent, baseUrl, key, path));
  times.sort((a, b) => a - b);
  return { path, calls, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99) };
}

/** Resident set of a process, now and its peak since the peak was last reset, in MB (Linux). */
function rssOf(pid: number): { nowMb: number; peakMb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { nowMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/**
 * The reports at a million payments: the book written straight into the database, then each report called 50
 * times (p50, p99), then an export of every payment, timed, with the server's peak resident set above idle.
 */
export async function reportsStep(
  env: { DATA_DIR: string; DATABASE_URL?: string },
  server: { baseUrl: string; pid: number },
  workspaceId: string,
  key: string,
  log: (line: string) => void,
): Promise<ReportsFigures> {
  log(
    `writing ${BOOK.plans} plans, ${BOOK.plans * BOOK.paymentsPerPlan} payments, ${BOOK.plans * BOOK.obligationsPerPlan} obligations`,
  );
  const seedSeconds = await seedBook(env, workspaceId, log);
  log('folding the book into the report rollup');
  const foldSeconds = await foldBook(env, workspaceId);
  // Connections of its own, opened now: seeding and folding SQLite block this process for minutes, so a pooled
  // connection the server closed meanwhile still looks open here and the first call fails with EPIPE.
  const agent = new Agent();
  const timings: ReportTiming[] = [];
  for (const path of [
    '/reports/summary',
    `/reports/summary?from=${iso(Date.now() - 30 * DAY_MS)}`,
    '/reports/collections',
    '/reports/collections?groupBy=month',
    '/reports/overdue',
  ]) {
    log(`GET ${path}, ${CALLS} calls`);
    timings.push(await timeCalls(agent, server.baseUrl, key, path));
  }
  log('POST /reports/export: every payment, csv');
  const idle = rssOf(server.pid);
  fs.writeFileSync(`/proc/${server.pid}/clear_refs`, '5');
  const began = Date.now();
  const created = await apiCall<{ id: string }>(
    server.baseUrl,
    key,
    'POST',
    '/reports/export',
    { report: 'payments', format: 'csv' },
    agent,
  );
  let exported: { status: string; progress: { rows: number }; error: string | null };
  for (;;) {
    exported = await apiCall(server.baseUrl, key, 'GET', `/reports/exports/${created.id}`, undefined, agent);
    if (exported.status === 'done' || exported.status === 'failed') break;
    if (Date.now() - began > 600_000) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const exportSeconds = (Date.now() - began) / 1000;
  await agent.close();
  const peak = rssOf(server.pid);
  const problems: string[] = [];
  for (const t of timings) {
    if (t.p99Ms > P99_CEILING_MS)
      problems.push(`GET ${t.path}: p99 ${t.p99Ms.toFixed(0)} ms, ceiling ${P99_CEILING_MS} ms`);
  }
  if (exported.status !== 'done')
    problems.push(`export ${created.id}: ${exported.status} ${exported.error ?? ''}`);
  if (peak.peakMb - idle.nowMb > EXPORT_RSS_CEILING_MB) {
    problems.push(
      `export: peak RSS ${(peak.peakMb - idle.nowMb).toFixed(0)} MB above idle, ceiling ${EXPORT_RSS_CEILING_MB} MB`,
    );
  }
  return {
    seedSeconds,
    foldSeconds,
    timings,
    exportSeconds,
    exportRows: exported.progress.rows,
    idleRssMb: idle.nowMb,
    exportPeakRssMb: peak.peakMb,
    problems,
  };
}
