import { sweepTenant } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { eachDue } from '../../jobs/sweep-batches.js';
import { earliest, type SweepDefinition } from '../../jobs/sweeps.js';
import type { Tenant } from '../../lib/tenant.js';
import { chargeLateFee } from '../../money/index.js';
import * as obligations from './obligations.repository.js';

const BATCH = 200;
/** Periods one instalment is looked at for in one run at most (a worker stopped for years, say). */
const MOST_PERIODS = 1000;

/**
 * Every fee period of an instalment that has come by `now`, in order, each in its own transaction (so a period
 * is charged at most once whatever else runs): returns how many fees were charged.
 */
async function chargeDuePeriods(ctx: AppContext, tenant: Tenant, id: string, now: string): Promise<number> {
  let charged = 0;
  let dueAt = (await obligations.findById(ctx.db, tenant, id))?.fee_next_at ?? null;
  for (let n = 0; n < MOST_PERIODS && dueAt !== null && Date.parse(dueAt) <= Date.parse(now); n++) {
    const at = dueAt;
    if (await inTransaction(ctx, tenant, (trx) => chargeLateFee(trx, tenant, id, at))) charged++;
    const after = (await obligations.findById(ctx.db, tenant, id))?.fee_next_at ?? null;
    if (after !== null && Date.parse(after) === Date.parse(at)) break;
    dueAt = after;
  }
  return charged;
}

/** Late fees of instalments whose fee period has come, each period charged once (`chargeLateFee`). */
export const lateFeesSweep: SweepDefinition = {
  name: 'obligations.late_fees',
  everyMs: 60_000,
  async run(ctx, scope) {
    const now = scope.now.toISOString();
    return eachDue(scope, {
      batch: BATCH,
      read: (limit) => obligations.feesDue(ctx.db, scope, now, limit),
      idOf: (found) => found.id,
      handle: (found) => chargeDuePeriods(ctx, sweepTenant(scope, found.workspace_id), found.id, now),
    });
  },
  async nextDueAfter(ctx, scope) {
    return earliest(await obligations.nextFeeDue(ctx.db, scope, scope.now.toISOString()));
  },
};
