import type { Trx } from '../db/schema.js';
import type { Tenant } from '../lib/tenant.js';
import * as obligations from '../modules/schedules/obligations.repository.js';
import type { ObligationsTable } from '../modules/schedules/schedules.table.js';
import type { TracksTable } from '../modules/tracks/tracks.table.js';
import { recordPaid } from './obligations-paid.js';
import { completeIfDone } from './schedule-completion.js';

/**
 * A plan whose balance went down other than by a payment (its amount lowered) asks no more than that balance:
 * its open obligations are trimmed, latest due date first, each lowered by what is in excess, down to what it
 * was paid. One left asking nothing is cancelled, or paid when it was partly paid. In the caller's transaction,
 * under the plan's row lock, with `track` as it now is.
 */
export async function trimToBalance(
  trx: Trx,
  tenant: Tenant,
  track: TracksTable,
  refs: Record<string, string> = { adjustment: 'plan.adjusted' },
): Promise<void> {
  const open = await obligations.openOfTrackLatestFirst(trx, track.id);
  let excess = open.reduce((sum, o) => sum + o.amount - o.amount_paid, 0) - track.balance;
  if (excess <= 0) return;
  const now = tenant.clock.now().toISOString();
  const paid: ObligationsTable[] = [];
  const touched = new Set<string>();
  for (const o of open) {
    if (excess <= 0) break;
    const cut = Math.min(o.amount - o.amount_paid, excess);
    excess -= cut;
    touched.add(o.schedule_id);
    const amount = o.amount - cut;
    if (amount === 0) {
      await obligations.cancel(trx, o.id, now);
      continue;
    }
    const status = amount === o.amount_paid ? 'paid' : o.status;
    const updated = await obligations.setAmount(trx, o.id, amount, status, now);
    if (updated?.status === 'paid') paid.push(updated);
  }
  await recordPaid(trx, tenant, track, paid, refs);
  for (const scheduleId of touched) await completeIfDone(trx, tenant, scheduleId);
}
