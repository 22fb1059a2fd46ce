import type { Trx } from '../../db/schema.js';
import { allocateOldestFirst } from '../../lib/calendar.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordEvent } from '../../outbox/outbox.js';
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
export type PaidFor = {
  customer_id: string | null;
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

/** Open obligations in the order money pays them: the one it was collected for first, then oldest due date first. */
function namedFirst<T extends { id: string }>(
  open: readonly T[],
  obligationId: string | null | undefined,
): T[] {
  const named = open.find((o) => o.id === obligationId);
  return named ? [named, ...open.filter((o) => o !== named)] : [...open];
}

/**
 * Pays `amount` of a payment into open obligations in the order given, each part stored on both sides. Returns
 * the parts made and the obligations it paid in full.
 */
async function payInto(
  trx: Trx,
  tenant: Tenant,
  open: readonly Pick<ObligationsTable, 'id' | 'amount' | 'amount_paid' | 'allocations'>[],
  payment: { id: string; amount: number },
) {
  const parts = allocateOldestFirst(
    payment.amount,
    open.map((o) => o.amount - o.amount_paid),
  );
  const now = tenant.clock.now().toISOString();
  const made: PaymentAllocation[] = [];
  const paid: ObligationsTable[] = [];
  const stillOpen = new Set<string>();
  for (const [i, obligation] of open.entries()) {
    const part = parts[i] ?? 0;
    if (part < obligation.amount - obligation.amount_paid) stillOpen.add(obligation.id);
    if (part === 0) continue;
    const kept = [
      ...allocationsOf(obligation),
      { payment_id: payment.id, amount: part, created_at: now, reversed_at: null },
    ];
    const updated = await obligations.pay(trx, obligation.id, part, JSON.stringify(kept), now);
    if (!updated) throw new Error(`obligation ${obligation.id} changed under its lock`);
    made.push({ obligationId: obligation.id, amount: part, reversedAt: null });
    if (updated.status === 'paid') paid.push(updated);
  }
  return { made, paid, stillOpen };
}

/** Completes the schedules whose last open obligation a payment just paid (an open-ended one always has some ahead). */
async function completePaidSchedules(
  trx: Trx,
  tenant: Tenant,
  open: readonly Pick<ObligationsTable, 'id' | 'schedule_id'>[],
  paid: readonly ObligationsTable[],
  stillOpen: ReadonlySet<string>,
): Promise<void> {
  const unfinished = new Set(open.filter((o) => stillOpen.has(o.id)).map((o) => o.schedule_id));
  for (const scheduleId of new Set(paid.map((o) => o.schedule_id))) {
    if (!unfinished.has(scheduleId)) await completeIfDone(trx, tenant, scheduleId);
  }
}

/**
 * Part of the money core: a payment on a plan pays the plan's open obligations, oldest due date first, across
 * its schedules, in the payment's transaction and under the plan's row lock (the balance change took it); money
 * collected for a named obligation (its checkout, its attempt) pays that one first. Each part is stored; what no
 * obligation takes stays unallocated. Obligations paid in full get their ledger entry and event, and schedules
 * with nothing left are completed.
 */
export async function allocatePayment(
  trx: Trx,
  tenant: Tenant,
  track: TracksTable,
  payment: { id: string; amount: number },
  firstObligationId: string | null = null,
): Promise<PaymentAllocation[]> {
  const open = namedFirst(await obligations.openOfTrack(trx, track.id), firstObligationId);
  const { made, paid, stillOpen } = await payInto(trx, tenant, open, payment);
  if (paid.length > 0) {
    await recordPaid(trx, tenant, track, paid, { paymentId: payment.id });
    await completePaidSchedules(trx, tenant, open, paid, stillOpen);
  }
  if (track.status === 'completed') await settlePaidOffPlan(trx, tenant, track.id);
  return made;
}

/** What the open obligations of a schedule without a plan still owe, in the order money pays them. */
export async function openOfPlanlessSchedule(trx: Trx, scheduleId: string, firstObligationId: string | null) {
  const open = namedFirst(await obligations.openOfSchedule(trx, scheduleId), firstObligationId);
  return { open, owed: open.reduce((sum, o) => sum + o.amount - o.amount_paid, 0) };
}

/**
 * A payment without a plan (money collected for a schedule without one) pays that schedule's open obligations
 * given by `openOfPlanlessSchedule`, in the payment's transaction: its amount is at most what they owe.
 */
export async function allocateToSchedule(
  trx: Trx,
  tenant: Tenant,
  open: readonly ObligationsTable[],
  payment: { id: string; amount: number; customerId: string | null },
): Promise<PaymentAllocation[]> {
  const { made, paid, stillOpen } = await payInto(trx, tenant, open, payment);
  if (paid.length > 0) {
    await recordPaid(trx, tenant, { id: null, customer_id: payment.customerId, balance: null }, paid, {
      paymentId: payment.id,
    });
    await completePaidSchedules(trx, tenant, open, paid, stillOpen);
  }
  return made;
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
