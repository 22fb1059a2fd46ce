import type { Trx } from '../db/schema.js';
import { invalidState, notFound } from '../lib/app-error.js';
import type { Tenant } from '../lib/tenant.js';
import { toApi } from '../modules/payments/payments.mapper.js';
import * as repo from '../modules/payments/payments.repository.js';
import type { Payment } from '../modules/payments/payments.schemas.js';
import type { PaymentAllocation, PaymentsTable } from '../modules/payments/payments.table.js';
import { recordEvent } from '../outbox/outbox.js';
import { applyBalanceChange } from './balance.js';
import { planlessEntry } from './payments.js';
import { undoAllocations } from './undo-allocations.js';

/** A reversed payment's amount back on its plan's balance (the plan's new balance), or, without a plan, on its customer's ledger. */
async function restoreBalance(trx: Trx, tenant: Tenant, reversed: PaymentsTable): Promise<number | null> {
  const entry = { type: 'payment.reversed' as const, refs: { paymentId: reversed.id } };
  if (reversed.track_id === null) {
    await planlessEntry(trx, tenant, 'payment.reversed', reversed, reversed.amount);
    return null;
  }
  const outcome = await applyBalanceChange(trx, tenant, {
    trackId: reversed.track_id,
    amountDelta: 0,
    paidDelta: -reversed.amount,
    from: ['active', 'completed', 'archived'],
    entry,
  });
  if (!outcome.ok) throw new Error(`reversing payment ${reversed.id}: the plan refused (${outcome.reason})`);
  return outcome.track.balance;
}

/**
 * Corrects a recorded payment, in the caller's transaction: it becomes `reversed` and its amount goes back on
 * the plan's balance through the money core (a completed plan is active again), with a `payment.reversed`
 * ledger entry and event; the obligations it paid owe it again.
 */
export async function reversePayment(
  trx: Trx,
  tenant: Tenant,
  id: string,
  reason: string | null,
): Promise<Payment> {
  const reversed = await repo.markReversed(trx, tenant, id, tenant.clock.now().toISOString(), reason);
  if (!reversed) {
    const current = await repo.findById(trx, tenant, id);
    if (!current) throw notFound('payment', id);
    throw invalidState('payment', current.status, 'reverse');
  }
  const balanceAfter = await restoreBalance(trx, tenant, reversed);
  const undone = await undoAllocations(
    trx,
    tenant,
    reversed.id,
    JSON.parse(reversed.allocations) as PaymentAllocation[],
  );
  const payment = toApi(await repo.setAllocations(trx, reversed.id, JSON.stringify(undone)));
  await recordEvent(trx, tenant, 'payment.reversed', { ...payment, balanceAfter });
  return payment;
}
