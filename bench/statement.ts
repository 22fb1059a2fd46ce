import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { formatTable } from '../src/cli/io.js';
import type { DatabaseKind } from './databases.js';
import { apiCall } from './processes.js';

/** The two statements rendered: a short one and one ten times as long, of one customer each. */
const SMALL_LINES = 500;
const LARGE_LINES = 5_000;
/** Payments of the large statement are spread over this many plans. */
const LARGE_PLANS = 10;
/** Payments in flight while seeding. */
const SEEDING = 16;
/** The large statement's peak may be this much above the small one's and still count as flat. */
const FLAT_RATIO = 1.25;
/** A slow reader takes this many bytes, then waits this long: about 64 KB/s, slower than the PDF is written. */
const SLOW_CHUNK = 16 * 1024;
const SLOW_WAIT_MS = 250;

export interface StatementRun {
  lines: number;
  reader: 'fast' | 'slow';
  seconds: number;
  bytes: number;
  idleRssMb: number;
  peakRssMb: number;
  heapBeforeMb: number;
  heapPeakMb: number;
}

export interface StatementFigures {
  seedSeconds: number;
  runs: StatementRun[];
  /** The large statement's peak RSS over the small one's (fast reader): flat is near 1. */
  ratio: number;
  problems: string[];
}

/** Resident set of a process, now and its peak since the peak was last reset, in MB (Linux). */
function rssOf(pid: number): { nowMb: number; peakMb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { nowMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/** The server's used heap as its /metrics says, in MB. */
async function heapUsedMb(agent: Agent, baseUrl: string): Promise<number> {
  const response = await request(`${baseUrl}/metrics`, { dispatcher: agent });
  const text = await response.body.text();
  const bytes = Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
  return bytes / 1024 / 1024;
}

/** `count` payments of 1 on the plans in turn, `SEEDING` at a time. */
async function pay(baseUrl: string, key: string, planIds: readonly string[], count: number, agent: Agent) {
  let next = 0;
  const worker = async () => {
    for (;;) {
      const n = next++;
      if (n >= count) return;
      await apiCall(
        baseUrl,
        key,
        'POST',
        '/payments',
        {
          trackId: planIds[n % planIds.length],
          amount: 1,
          method: 'bank_transfer',
          reference: `BENCH-${n}-${planIds[0]}`,
        },
        agent,
      );
    }
  };
  await Promise.all(Array.from({ length: SEEDING }, worker));
}

/** A customer with `plans` plans (NGN) and `payments` payments on them: a statement of `plans + payments` lines. */
async function seedCustomer(
  baseUrl: string,
  key: string,
  name: string,
  plans: number,
  payments: number,
  agent: Agent,
): Promise<string> {
  const customer = await apiCall<{ id: string }>(
    baseUrl,
    key,
    'POST',
    '/customers',
    { name, phone: `+23480${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}` },
    agent,
  );
  const planIds: string[] = [];
  for (let i = 0; i < plans; i++) {
    const plan = await apiCall<{ id: string }>(
      baseUrl,
      key,
      'POST',
      '/tracks',
      {
        customerId: customer.id,
        title: `Statement bench plan ${i + 1}`,
        amount: 1_000_000_000,
        currency: 'NGN',
      },
      agent,
    );
    planIds.push(plan.id);
  }
  await pay(baseUrl, key, planIds, payments, agent);
  return customer.id;
}

/** One PDF download, read fast or slowly, with the server's peak RSS and sampled heap while it streams. */
async function render(
  server: { baseUrl: string; pid: number },
  key: string,
  customerId: string,
  lines: number,
  reader: 'fast' | 'slow',
): Promise<StatementRun> {
  const agent = new Agent();
  try {
    // Settle what earlier work left, so the peak is this download's.
    await sleep(500);
    const idle = rssOf(server.pid);
    fs.writeFileSync(`/proc/${server.pid}/clear_refs`, '5');
    const heapBeforeMb = await heapUsedMb(agent, server.baseUrl);
    let heapPeakMb = heapBeforeMb;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        heapPeakMb = Math.max(heapPeakMb, await heapUsedMb(agent, server.baseUrl));
        await sleep(20);
      }
    })();
    const began = performance.now();
    const response = await request(`${server.baseUrl}/api/v1/customers/${customerId}/statement?format=pdf`, {
      dispatcher: agent,
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(600_000),
    });
    let bytes = 0;
    let tail = Buffer.alloc(0);
    for await (const chunk of response.body) {
      const data = chunk as Buffer;
      bytes += data.length;
      tail = Buffer.concat([tail, data]).subarray(-16);
      if (reader === 'slow') await sleep((SLOW_WAIT_MS * data.length) / SLOW_CHUNK);
    }
    const seconds = (performance.now() - began) / 1000;
    sampling = false;
    await sampler;
    const peak = rssOf(server.pid);
    if (response.statusCode !== 200 || !tail.toString('latin1').includes('%%EOF')) {
      throw new Error(
        `the ${lines}-line statement PDF answered ${response.statusCode}, ${bytes} bytes, not a whole PDF`,
      );
    }
    return {
      lines,
      reader,
      seconds,
      bytes,
      idleRssMb: idle.nowMb,
      peakRssMb: peak.peakMb,
      heapBeforeMb,
      heapPeakMb,
    };
  } finally {
    await agent.close();
  }
}

/**
 * A statement PDF of 5,000 lines renders in flat memory: two customers seeded through the API (one with 500
 * payments, one with 5,000 over ten plans), each statement downloaded once to warm up, then measured: the server's
 * peak resident set (VmHWM, reset before each download) and its used heap sampled every 20 ms while the PDF
 * streams, for the 500-line and the 5,000-line statement read as fast as they come, and the 5,000-line one read
 * slowly (the writer waits for the reader). Flat: the 5,000-line peak within 1.25 times the 500-line one.
 */
export async function statementStep(
  server: { baseUrl: string; pid: number },
  key: string,
  log: (line: string) => void,
): Promise<StatementFigures> {
  const agent = new Agent();
  const began = performance.now();
  log(
    `statement: seeding a customer with ${SMALL_LINES} payments and one with ${LARGE_LINES} on ${LARGE_PLANS} plans`,
  );
  const small = await seedCustomer(server.baseUrl, key, 'Statement bench, short', 1, SMALL_LINES - 1, agent);
  const large = await seedCustomer(
    server.baseUrl,
    key,
    'Statement bench, long',
    LARGE_PLANS,
    LARGE_LINES - LARGE_PLANS,
    agent,
  );
  await agent.close();
  const seedSeconds = (performance.now() - began) / 1000;
  log(`statement: seeded in ${seedSeconds.toFixed(0)} s; warming up`);
  await render(server, key, small, SMALL_LINES, 'fast');
  await render(server, key, large, LARGE_LINES, 'fast');
  const runs: StatementRun[] = [];
  for (const [customer, lines, reader] of [
    [small, SMALL_LINES, 'fast'],
    [large, LARGE_LINES, 'fast'],
    [large, LARGE_LINES, 'slow'],
  ] as const) {
    log(`statement: the ${lines}-line PDF, ${reader} reader`);
    runs.push(await render(server, key, customer, lines, reader));
  }
  const [smallRun, largeRun, slowRun] = runs as [StatementRun, StatementRun, StatementRun];
  const ratio = largeRun.peakRssMb / smallRun.peakRssMb;
  const problems: string[] = [];
  for (const run of [largeRun, slowRun]) {
    if (run.peakRssMb / smallRun.peakRssMb > FLAT_RATIO) {
      problems.push(
        `the ${run.lines}-line statement (${run.reader} reader) peaked at ${run.peakRssMb.toFixed(0)} MB RSS, over ${FLAT_RATIO} times the ${smallRun.lines}-line one's ${smallRun.peakRssMb.toFixed(0)} MB`,
      );
    }
  }
  return { seedSeconds, runs, ratio, problems };
}

export function statementTable(figures: [DatabaseKind, StatementFigures][]): string {
  return formatTable(
    [
      'database',
      'lines',
      'reader',
      'seconds',
      'KB',
      'RSS idle → peak',
      'heap before → peak',
      'peak vs 500 lines',
    ],
    figures.flatMap(([kind, f]) => {
      const base = f.runs[0]?.peakRssMb ?? 1;
      return f.runs.map((run) => [
        kind,
        run.lines.toLocaleString('en-US'),
        run.reader,
        run.seconds.toFixed(2),
        (run.bytes / 1024).toFixed(0),
        `${run.idleRssMb.toFixed(0)} → ${run.peakRssMb.toFixed(0)} MB`,
        `${run.heapBeforeMb.toFixed(0)} → ${run.heapPeakMb.toFixed(0)} MB`,
        (run.peakRssMb / base).toFixed(2),
      ]);
    }),
  );
}

export const statementNote = (figures: [DatabaseKind, StatementFigures][]) =>
  `Statement: GET /customers/{id}/statement?format=pdf on the built server, a customer of ${SMALL_LINES} lines and one of ${LARGE_LINES.toLocaleString('en-US')} (payments through the API, seeded in ${figures.map(([kind, f]) => `${kind} ${f.seedSeconds.toFixed(0)} s`).join(', ')}), each downloaded once to warm up; peak RSS is the server's VmHWM reset before each download, heap its used heap from /metrics every 20 ms; the slow reader takes about ${Math.round(((SLOW_CHUNK / SLOW_WAIT_MS) * 1000) / 1024)} KB/s. Flat: the ${LARGE_LINES.toLocaleString('en-US')}-line peak within ${FLAT_RATIO} times the ${SMALL_LINES}-line one (ratio ${figures.map(([kind, f]) => `${kind} ${f.ratio.toFixed(2)}`).join(', ')}).`;
