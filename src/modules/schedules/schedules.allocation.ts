import type { Trx } from '../../db/schema.js';
import { recordEvent } from '../../events/outbox.js';
import { allocateOldestFirst } from '../../lib/calendar.js';
import type { Tenant } from '../../lib/tenant.js';
import { appendEntries } from '../ledger/ledger.service.js';
import type { PaymentAllocation } from '../payments/payments.table.js';
import type { TracksTable } from '../tracks/tracks.table.js';
import * as obligations from './obligations.repository.js';
import { topUpAt } from './schedules.generation.js';
import { obligationToEvent, toApi } from './schedules.mapper.js';
import * as repo from './schedules.repository.js';
import type { ObligationAllocation, ObligationsTable, ScheduleStatus } from './schedules.table.js';

function allocationsOf(row: Pick<ObligationsTable, 'allocations'>): ObligationAllocation[] {
  return JSON.parse(row.allocations) as ObligationAllocation[];
}

/** Emits the schedule's event with the schedule as it now is. */
async function emitSchedule(
  trx: Trx,
  tenant: Tenant,
  type: 'schedule.updated' | 'schedule.completed',
  id: string,
  previousStatus?: ScheduleStatus,
): Promise<void> {
  const row = await repo.findById(trx, tenant, id);
  if (!row) return;
  await recordEvent(trx, tenant, type, toApi(row), previousStatus ? { status: previousStatus } : null);
}

/** A schedule with nothing left to collect is completed: every obligation paid or cancelled, none to generate. */
export async function completeIfDone(trx: Trx, tenant: Tenant, scheduleId: string): Promise<void> {
  const done = await repo.completeIfDone(trx, tenant, scheduleId, tenant.clock.now().toISOString());
  if (done) await emitSchedule(trx, tenant, 'schedule.completed', scheduleId);
}

/**
 * A plan paid off owes nothing more: the open obligations of its schedules in force are cancelled (an
 * open-ended schedule keeps some ahead) and the schedules are completed. Called by every change that can pay a
 * plan off: a payment, and an amount lowered to what was paid.
 */
export async function settlePaidOffPlan(trx: Trx, tenant: Tenant, trackId: string): Promise<void> {
  const now = tenant.clock.now().toISOString();
  for (const schedule of await repo.inForceOfTrack(trx, tenant, trackId)) {
    await obligations.cancelOpenOfSchedule(trx, schedule.id, now);
    const done = await repo.updateIn(trx, tenant, schedule.id, [schedule.status], {
      status: 'completed',
      top_up_at: null,
      updated_at: now,
    });
    if (done) await emitSchedule(trx, tenant, 'schedule.completed', schedule.id);
  }
}

/** An archived plan collects nothing more: its schedules not yet done are cancelled with their open obligations. */
export async function cancelSchedulesOfPlan(trx: Trx, tenant: Tenant, trackId: string): Promise<void> {
  const now = tenant.clock.now().toISOString();
  const schedules = await trx
    .selectFrom('schedules')
    .select(['id', 'status'])
    .where('track_id', '=', trackId)
    .where('status', 'in', ['draft', 'active', 'paused'])
    .execute();
  for (const schedule of schedules) {
    const cancelled = await repo.updateIn(trx, tenant, schedule.id, [schedule.status], {
      status: 'cancelled',
      top_up_at: null,
      updated_at: now,
    });
    if (!cancelled) continue;
    await obligations.cancelOpenOfSchedule(trx, schedule.id, now);
    const row = await repo.findById(trx, tenant, schedule.id);
    if (row) await recordEvent(trx, tenant, 'schedule.cancelled', toApi(row), { status: schedule.status });
  }
}

/** Whose obligations were paid: a plan, or for a payment without one, its customer alone. */
export type PaidFor = Pick<TracksTable, 'customer_id'> & {
  id: string | null;
  balance: number | null;
};

/** The ledger entries (amount 0) and events of obligations just paid in full. */
export async function recordPaid(
  trx: Trx,
  tenant: Tenant,
  track: PaidFor,
  paid: readonly ObligationsTable[],
  refs: Record<string, string>,
): Promise<void> {
  if (paid.length === 0) return;
  await appendEntries(
    trx,
    tenant,
    paid.map((o) => ({
      type: 'obligation.paid' as const,
      trackId: track.id,
      customerId: track.customer_id,
      amount: 0,
      balanceAfter: track.balance,
      currency: o.currency,
      refs: { obligationId: o.id, scheduleId: o.schedule_id, ...refs },
    })),
  );
  for (const o of paid) await recordEvent(trx, tenant, 'obligation.paid', obligationToEvent(o));
}

/**
 * Part of the money core: a payment on a plan pays the plan's open obligations, oldest due date first, across
 * its schedules, in the payment's transaction and under the plan's row lock (the balance change took it).
 * Each part is stored; what no obligation takes stays unallocated. Obligations paid in full get their ledger
 * entry and event, and schedules with nothing left are completed.
 */
export async function allocatePayment(
  trx: Trx,
  tenant: Tenant,
  track: TracksTable,
  payment: { id: string; amount: number },
): Promise<PaymentAllocation[]> {
  const open = await obligations.openOfTrack(trx, track.id);
  const parts = allocateOldestFirst(
    payment.amount,
    open.map((o) => o.amount - o.amount_paid),
  );
  const now = tenant.clock.now().toISOString();
  const made: PaymentAllocation[] = [];
  const paid: ObligationsTable[] = [];
  for (const [i, obligation] of open.entries()) {
    const part = parts[i] ?? 0;
    if (part === 0) break;
    const kept = [
      ...allocationsOf(obligation),
      { payment_id: payment.id, amount: part, created_at: now, reversed_at: null },
    ];
    const updated = await obligations.pay(trx, obligation.id, part, JSON.stringify(kept), now);
    if (!updated) throw new Error(`obligation ${obligation.id} changed under its plan's lock`);
    made.push({ obligationId: obligation.id, amount: part, reversedAt: null });
    if (updated.status === 'paid') paid.push(updated);
  }
  if (paid.length > 0) {
    await recordPaid(trx, tenant, track, paid, { paymentId: payment.id });
    // A schedule can only be done when this payment paid the last of its open obligations (an open-ended one
    // always has some ahead), so only those are asked.
    const stillOpen = new Set(
      open.filter((o, i) => (parts[i] ?? 0) < o.amount - o.amount_paid).map((o) => o.schedule_id),
    );
    for (const scheduleId of new Set(paid.map((o) => o.schedule_id))) {
      if (!stillOpen.has(scheduleId)) await completeIfDone(trx, tenant, scheduleId);
    }
  }
  if (track.status === 'completed') await settlePaidOffPlan(trx, tenant, track.id);
  return made;
}

/**
 * A payment without a plan (a collection for a schedule without one) pays the one obligation it was collected
 * for, in the payment's transaction. Throws when the obligation no longer owes it: the caller's transaction
 * must not record the payment then.
 */
export async function allocateToObligation(
  trx: Trx,
  tenant: Tenant,
  obligation: ObligationsTable,
  payment: { id: string; amount: number; customerId: string },
): Promise<PaymentAllocation[]> {
  const now = tenant.clock.now().toISOString();
  const kept = [
    ...allocationsOf(obligation),
    { payment_id: payment.id, amount: payment.amount, created_at: now, reversed_at: null },
  ];
  const updated = await obligations.pay(trx, obligation.id, payment.amount, JSON.stringify(kept), now);
  if (!updated) throw new Error(`obligation ${obligation.id} no longer owes ${payment.amount}`);
  if (updated.status === 'paid') {
    await recordPaid(trx, tenant, { id: null, customer_id: payment.customerId, balance: null }, [updated], {
      paymentId: payment.id,
    });
    await completeIfDone(trx, tenant, updated.schedule_id);
  }
  return [{ obligationId: obligation.id, amount: payment.amount, reversedAt: null }];
}

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
    const schedule = await repo.findRow(trx, tenant, scheduleId);
    if (schedule?.status !== 'completed') continue;
    const active = await repo.updateIn(trx, tenant, scheduleId, ['completed'], {
      status: 'active',
      top_up_at: topUpAt(schedule, schedule.next_sequence),
      updated_at: now,
    });
    if (active) await emitSchedule(trx, tenant, 'schedule.updated', scheduleId, 'completed');
  }
  return allocations.map((a) => (a.reversedAt === null ? { ...a, reversedAt: now } : a));
}
