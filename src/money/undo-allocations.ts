import type { Trx } from '../db/schema.js';
import type { Tenant } from '../lib/tenant.js';
import type { PaymentAllocation } from '../modules/payments/payments.table.js';
import * as obligations from '../modules/schedules/obligations.repository.js';
import { topUpAt } from '../modules/schedules/schedules.generation.js';
import { obligationToEvent } from '../modules/schedules/schedules.mapper.js';
import * as schedules from '../modules/schedules/schedules.repository.js';
import { recordEvent } from '../outbox/outbox.js';
import { allocationsOf } from './allocation.js';
import { emitSchedule } from './schedule-completion.js';

/**
 * Undoes a reversed payment's allocations, in the reversal's transaction: the parts are marked reversed (they
 * stay visible), the obligations owe them again (overdue at once when past due) and a schedule completed by
 * them is active again.
 */
export async function undoAllocations(
  trx: Trx,
  tenant: Tenant,
  paymentId: string,
  allocations: readonly PaymentAllocation[],
): Promise<PaymentAllocation[]> {
  const now = tenant.clock.now().toISOString();
  const reopened = new Set<string>();
  for (const allocation of allocations) {
    if (allocation.reversedAt !== null) continue;
    const before = await obligations.findById(trx, tenant, allocation.obligationId);
    if (!before)
      throw new Error(`payment ${paymentId} names obligation ${allocation.obligationId}, which is gone`);
    const kept = allocationsOf(before).map((a) =>
      a.payment_id === paymentId && a.reversed_at === null ? { ...a, reversed_at: now } : a,
    );
    const after = await obligations.unpay(trx, before.id, allocation.amount, JSON.stringify(kept), now);
    if (!after) continue;
    if (after.status === 'overdue' && before.status !== 'overdue') {
      await recordEvent(trx, tenant, 'obligation.overdue', obligationToEvent(after));
    }
    if (after.status !== 'cancelled') reopened.add(after.schedule_id);
  }
  for (const scheduleId of reopened) {
    const schedule = await schedules.findRow(trx, tenant, scheduleId);
    if (schedule?.status !== 'completed') continue;
    const active = await schedules.updateIn(trx, tenant, scheduleId, ['completed'], {
      status: 'active',
      top_up_at: topUpAt(schedule, schedule.next_sequence),
      updated_at: now,
    });
    if (active) await emitSchedule(trx, tenant, 'schedule.updated', scheduleId, 'completed');
  }
  return allocations.map((a) => (a.reversedAt === null ? { ...a, reversedAt: now } : a));
}
