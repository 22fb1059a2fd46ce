import type { Trx } from '../db/schema.js';
import { allocateOldestFirst } from '../lib/calendar.js';
import type { Tenant } from '../lib/tenant.js';
import type { PaymentAllocation } from '../modules/payments/payments.table.js';
import * as obligations from '../modules/schedules/obligations.repository.js';
import type { ObligationAllocation, ObligationsTable } from '../modules/schedules/schedules.table.js';
import type { TracksTable } from '../modules/tracks/tracks.table.js';
import type { OpenObligation } from './balance.js';
import type { DeferredWrites } from './deferred-writes.js';
import { recordPaid } from './obligations-paid.js';
import { completeIfDone, settlePaidOffPlan } from './schedule-completion.js';

/** An obligation's allocations as it keeps them. */
export function allocationsOf(row: Pick<ObligationsTable, 'allocations'>): ObligationAllocation[] {
  return JSON.parse(row.allocations) as ObligationAllocation[];
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
  open: readonly Pick<ObligationsTable, 'id' | 'amount' | 'amount_paid' | 'allocations' | 'status'>[],
  payment: { id: string; amount: number },
  /** Given, a part that leaves its obligation open is left for the payment's last statement. */
  deferred?: DeferredWrites,
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
    const kept = JSON.stringify([
      ...allocationsOf(obligation),
      { payment_id: payment.id, amount: part, created_at: now, reversed_at: null },
    ]);
    made.push({ obligationId: obligation.id, amount: part, reversedAt: null });
    if (deferred?.obligationPart === null && stillOpen.has(obligation.id)) {
      deferred.obligationPart = { id: obligation.id, part, allocations: kept, now };
      continue;
    }
    const updated =
      (stillOpen.has(obligation.id) && obligation.status !== 'pending'
        ? await obligations.payKeepingStatus(trx, obligation.id, part, kept, now)
        : undefined) ?? (await obligations.pay(trx, obligation.id, part, kept, now));
    if (!updated) throw new Error(`obligation ${obligation.id} changed under its lock`);
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
  deferred?: DeferredWrites,
  /** The plan's open obligations when the statement that moved its balance read them (PostgreSQL). */
  alreadyRead?: readonly OpenObligation[],
): Promise<PaymentAllocation[]> {
  const open = namedFirst(alreadyRead ?? (await obligations.openOfTrack(trx, track.id)), firstObligationId);
  // A plan paid off cancels its open obligations below: a part in one of them cannot wait.
  const waits = track.status === 'completed' ? undefined : deferred;
  const { made, paid, stillOpen } = await payInto(trx, tenant, open, payment, waits);
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
