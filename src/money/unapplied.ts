import type { Trx } from '../db/schema.js';
import { AppError, fieldError, invalidState, notFound } from '../lib/app-error.js';
import { newId } from '../lib/ids.js';
import { parseMetadata, stringifyMetadata } from '../lib/json.js';
import type { Tenant } from '../lib/tenant.js';
import { isUnapplied, toApi } from '../modules/payments/payments.mapper.js';
import * as repo from '../modules/payments/payments.repository.js';
import type { Payment } from '../modules/payments/payments.schemas.js';
import type { PaymentsTable } from '../modules/payments/payments.table.js';
import { lockTrack } from '../modules/tracks/tracks.repository.js';
import { recordEvent } from '../outbox/outbox.js';
import { applyPayment, placeOnPlan, planlessEntry, recordWithoutPlan } from './payments.js';

/** Its metadata once on a plan: without the notes that said why no plan had taken it (`unappliedReason` keeps that). */
function appliedMetadata(row: PaymentsTable): Record<string, string> {
  const { unapplied: _why, planId: _plan, ...rest } = parseMetadata(row.metadata);
  return rest;
}

/** The payment is not unapplied money: it cannot be applied. */
function notApplicable(row: PaymentsTable): AppError {
  const state = row.status !== 'recorded' ? row.status : 'applied';
  return new AppError(
    'invalid_state',
    row.status !== 'recorded'
      ? `Cannot apply: the payment is ${row.status}.`
      : 'Cannot apply: the payment is already on a plan; only unapplied payments (credit) are applied.',
    { status: state, action: 'apply' },
  );
}

/**
 * Applies an unapplied payment (credit) to a plan of its customer and currency, in the caller's transaction,
 * through the money core: what the plan's balance takes is allocated as any payment (`payment.applied` on the
 * plan's ledger and the customer's, and as event). When the payment is more than the balance it is split: the
 * part the plan took and the credit left become payments of their own (each `splitFrom` it) and it becomes
 * `split`. Money is neither made nor lost: every ledger sum and report stays as it was, but for the plan's balance.
 */
export async function applyUnapplied(
  trx: Trx,
  tenant: Tenant,
  id: string,
  trackId: string,
): Promise<Payment> {
  const row = await repo.findById(trx, tenant, id);
  if (!row) throw notFound('payment', id);
  if (!isUnapplied(row)) throw notApplicable(row);
  const track = await lockTrack(trx, tenant, trackId);
  if (!track) throw notFound('track', trackId, 'trackId');
  if (row.customer_id !== null && track.customer_id !== row.customer_id) {
    throw fieldError({ trackId: `must be a plan of the payment's customer, ${row.customer_id}` });
  }
  if (track.currency !== row.currency) {
    throw fieldError({
      trackId: `must be a plan in the payment's currency, ${row.currency} (this plan is in ${track.currency})`,
    });
  }
  if (track.status !== 'active') throw invalidState('track', track.status, 'apply_payment');
  const part = Math.min(row.amount, track.balance);
  const released = (paymentId: string) =>
    planlessEntry(trx, tenant, 'payment.applied', row, part, undefined, {
      appliedTo: track.id,
      appliedAs: paymentId,
    });
  if (part === row.amount) {
    const claimed = await repo.moveToPlan(
      trx,
      tenant,
      id,
      { trackId: track.id, customerId: track.customer_id },
      stringifyMetadata(appliedMetadata(row)),
    );
    if (!claimed) throw notApplicable((await repo.findById(trx, tenant, id)) ?? row);
    const placed = await placeOnPlan(trx, tenant, {
      paymentId: id,
      trackId: track.id,
      amount: part,
      entryType: 'payment.applied',
    });
    if (!placed.ok) throw placed.refusal;
    await released(id);
    const payment = toApi(await repo.setAllocations(trx, id, JSON.stringify(placed.allocations)));
    await recordEvent(
      trx,
      tenant,
      'payment.applied',
      { ...payment, balanceAfter: placed.track.balance },
      { trackId: null, unapplied: true, ...(row.customer_id === null ? { customerId: null } : {}) },
    );
    return payment;
  }
  const at = tenant.clock.now();
  const onPlanId = newId('payment', at);
  const creditId = newId('payment', at);
  const claimed = await repo.markSplit(trx, tenant, id, [onPlanId, creditId]);
  if (!claimed) throw notApplicable((await repo.findById(trx, tenant, id)) ?? row);
  const facts = {
    method: row.method as Payment['method'],
    paidAt: row.paid_at,
    source: row.source,
    metadata: appliedMetadata(row),
    splitFrom: id,
  };
  const onPlan = await applyPayment(
    trx,
    tenant,
    { ...facts, id: onPlanId, trackId: track.id, amount: part, reference: row.reference },
    'applied',
  );
  if (!onPlan.ok) throw onPlan.refusal;
  await released(onPlanId);
  await recordWithoutPlan(
    trx,
    tenant,
    { ...facts, id: creditId, amount: row.amount - part, currency: row.currency, reference: null },
    {
      customerId: track.customer_id,
      unapplied: { reason: 'overpayment', planId: track.id, message: MORE_THAN_THE_BALANCE },
      fresh: false,
    },
  );
  return onPlan.payment;
}

const MORE_THAN_THE_BALANCE =
  'More than the plan’s balance: the excess is the customer’s credit, to apply to another plan or refund.';
