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
  log(`POST /api/v1/payments on ${plans} plans without schedules`);
  const plainResult = await drive(plain);
  log(`POST /api/v1/payments on ${plans} plans with a monthly schedule of 12 obligations each`);
  const scheduledResult = await drive(scheduled);
  const check = await checkAllocations(env, scheduled);
  return {
    plain: plainResult,
    scheduled: scheduledResult,
    ratio: scheduledResult.perSecond / plainResult.perSecond,
    ...check,
  };
}

/** Whether each plan's obligations were paid exactly what the plan was (nothing exceeds the 12 obligations here). */
async function checkAllocations(
  env: { DATA_DIR: string; DATABASE_URL?: string },
  trackIds: string[],
): Promise<{ exact: boolean; detail: string }> {
  const config = loadConfig({ ...env, LOG_LEVEL: 'warn' });
  const handle = openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, poolSize: 1 });
  try {
    const plans = await handle.db
      .selectFrom('tracks')
      .select(['id', 'amount_paid'])
      .where('id', 'in', trackIds)
      .execute();
    const obligations = await handle.db
      .selectFrom('obligations')
      .select((eb) => ['track_id', eb.fn.sum<number>('amount_paid').as('paid')])
      .where('track_id', 'in', trackIds)
      .groupBy('track_id')
      .execute();
    const paidBy = new Map(obligations.map((row) => [row.track_id, Number(row.paid)]));
    const wrong = plans.filter((plan) => Number(plan.amount_paid) !== (paidBy.get(plan.id) ?? 0));
    const total = plans.reduce((sum, plan) => sum + Number(plan.amount_paid), 0);
    return wrong.length === 0
      ? {
          exact: true,
          detail: `OK: on all ${plans.length} scheduled plans, obligations paid = plan paid (${total})`,
        }
      : { exact: false, detail: `MISMATCH on ${wrong.length} scheduled plans, e.g. ${wrong[0]?.id}` };
  } finally {
    await handle.close();
  }
}
