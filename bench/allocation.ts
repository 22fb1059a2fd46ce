import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { httpLoad, type LoadOptions, type LoadResult, roundRobin } from './load.js';

/** Plans of the allocation step: each gets a monthly schedule of 12 obligations of this amount. */
const OBLIGATION_AMOUNT = 2_000;
/** Each payment pays this much: a tenth of an obligation, so one payment in ten pays one off. */
const PAYMENT_AMOUNT = 200;

export interface AllocationFigures {
  plain: LoadResult;
  scheduled: LoadResult;
  /** Scheduled rate / plain rate. */
  ratio: number;
  /** On every scheduled plan, the obligations' amount_paid sum to the plan's amount paid. */
  exact: boolean;
  detail: string;
}

type Post = <T>(path: string, body: unknown) => Promise<T>;

/** Two runs as one: the mean rate, the worse p99, every failure. */
function combined(results: LoadResult[]): LoadResult {
  return {
    perSecond: results.reduce((sum, r) => sum + r.perSecond, 0) / results.length,
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    failures: results.reduce((sum, r) => sum + r.failures, 0),
    failureDetail: results
      .map((r) => r.failureDetail)
      .filter(Boolean)
      .join('; '),
  };
}

async function newPlans(post: Post, customerId: string, count: number, label: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const plan = await post<{ id: string }>('/tracks', {
      customerId,
      title: `${label} ${i + 1}`,
      amount: 1_000_000_000_000,
    });
    ids.push(plan.id);
  }
  return ids;
}

/**
 * POST /payments on plans without schedules, then on plans that each have a monthly schedule of 12
 * obligations (every payment is allocated), back to back in the same server: the price of allocation.
 */
export async function allocationStep(
  baseUrl: string,
  key: string,
  post: Post,
  env: { DATA_DIR: string; DATABASE_URL?: string },
  plans: number,
  load: LoadOptions,
  log: (line: string) => void,
): Promise<AllocationFigures> {
  const customer = await post<{ id: string }>('/customers', {
    name: 'Allocation bench',
    phone: '+2348031234599',
  });
  const plain = await newPlans(post, customer.id, plans, 'Unscheduled plan');
  const scheduled = await newPlans(post, customer.id, plans, 'Scheduled plan');
  for (const trackId of scheduled) {
    await post('/collection-schedules', {
      target_type: 'payment_plan',
      target_id: trackId,
      frequency: 'monthly',
      fixed_amount: OBLIGATION_AMOUNT,
      start_date: new Date().toISOString(),
    });
  }
  const drive = (ids: string[]) =>
    httpLoad(
      {
        baseUrl,
        method: 'POST',
        key,
        next: ((nextId) => () => ({
          path: '/api/v1/payments',
          body: { trackId: nextId(), amount: PAYMENT_AMOUNT, method: 'cash' },
        }))(roundRobin(ids)),
      },
      load,
    );
  // Alternated, twice each, so that drift over the run (the database growing, the other steps' work) weighs on
  // both alike.
  const runs: { plain: LoadResult[]; scheduled: LoadResult[] } = { plain: [], scheduled: [] };
  for (let round = 1; round <= 2; round++) {
    log(`POST /api/v1/payments on ${plans} plans without schedules (${round} of 2)`);
    runs.plain.push(await drive(plain));
    log(
      `POST /api/v1/payments on ${plans} plans with a monthly schedule of 12 obligations each (${round} of 2)`,
    );
    runs.scheduled.push(await drive(scheduled));
  }
  const plainResult = combined(runs.plain);
  const scheduledResult = combined(runs.scheduled);
  const check = await checkAllocations(env, scheduled);
  return {
    plain: plainResult,
    scheduled: scheduledResult,
    ratio: scheduledResult.perSecond / plainResult.perSecond,
    ...check,
  };
}

/**
 * Whether each plan's obligations were paid exactly what allocation owes them: everything the plan was paid, up
 * to what the 12 obligations add up to (a fast run can pay some plans beyond them; the rest is unallocated).
 */
async function checkAllocations(
  env: { DATA_DIR: string; DATABASE_URL?: string },
  trackIds: string[],
): Promise<{ exact: boolean; detail: string }> {
  const config = loadConfig({ ...env, LOG_LEVEL: 'warn' });
  const handle = openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, poolSize: 1 });
  try {
    // One statement, so one snapshot: payments still in flight when the load stops commit plan and obligations
    // together, and must not be seen half.
    const plans = await handle.db
      .selectFrom('tracks')
      .select((eb) => [
        'tracks.id',
        'tracks.amount_paid',
        eb
          .selectFrom('obligations')
          .select((sub) => sub.fn.sum<number>('obligations.amount_paid').as('paid'))
          .whereRef('obligations.track_id', '=', 'tracks.id')
          .as('paid'),
        eb
          .selectFrom('obligations')
          .select((sub) => sub.fn.sum<number>('obligations.amount').as('owed'))
          .whereRef('obligations.track_id', '=', 'tracks.id')
          .as('owed'),
      ])
      .where('tracks.id', 'in', trackIds)
      .execute();
    const describe = (plan: (typeof plans)[number]) =>
      `${plan.id}: plan paid ${plan.amount_paid}, its obligations were paid ${plan.paid} of ${plan.owed}`;
    const wrong = plans.filter(
      (plan) => Math.min(Number(plan.amount_paid), Number(plan.owed)) !== Number(plan.paid ?? 0),
    );
    const total = plans.reduce((sum, plan) => sum + Number(plan.amount_paid), 0);
    return wrong.length === 0
      ? {
          exact: true,
          detail: `OK: on all ${plans.length} scheduled plans, obligations paid = min(plan paid, obligations) (${total} paid in all)`,
        }
      : {
          exact: false,
          detail: `MISMATCH on ${wrong.length} scheduled plans: ${wrong
            .slice(0, 3)
            .map(describe)
            .join('; ')}`,
        };
  } finally {
    await handle.close();
  }
}
