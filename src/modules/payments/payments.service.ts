import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Trx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { fieldError, invalidState, notFound } from '../../lib/app-error.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { instantRange, toInstant } from '../../lib/instant.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import { recordEvent } from '../../outbox/outbox.js';
import { undoAllocations } from '../schedules/schedules.allocation.js';
import { applyBalanceChange } from '../tracks/tracks.balance.js';
import { getTrackRow } from '../tracks/tracks.service.js';
import { applyPayment, applyUnapplied, duplicateReference, planlessEntry, toApi } from './payments.money.js';
import * as repo from './payments.repository.js';
import type {
  Payment,
  PaymentApply,
  PaymentCreate,
  PaymentListQuery,
  PaymentReverse,
  TrackPaymentListQuery,
} from './payments.schemas.js';
import type { PaymentAllocation, PaymentsTable } from './payments.table.js';

/** Clocks drift; a payment a few minutes "ahead" is still accepted. */
const FUTURE_TOLERANCE_MS = 5 * 60 * 1000;

/** `POST /payments`: one payment, in its own unit of work. Exact under any number of concurrent payments. */
export async function recordPayment(ctx: AppContext, tenant: Tenant, input: PaymentCreate): Promise<Payment> {
  const now = tenant.clock.now();
  const paidAt = input.paidAt ? toInstant(input.paidAt, 'paidAt') : now.toISOString();
  if (new Date(paidAt).getTime() > now.getTime() + FUTURE_TOLERANCE_MS) {
    throw fieldError({ paidAt: 'must not be in the future' });
  }
  try {
    return await inTransaction(ctx, async (trx) => {
      const outcome = await applyPayment(trx, tenant, {
        trackId: input.trackId,
        amount: input.amount,
        method: input.method ?? 'other',
        paidAt,
        reference: input.reference ?? null,
        source: 'api',
        metadata: input.metadata,
      });
      if (!outcome.ok) throw outcome.refusal;
      return outcome.payment;
    });
  } catch (error) {
    // Two requests with the same new reference at once: the unique index lets one through.
    if (isUniqueViolation(error)) throw duplicateReference();
    throw error;
  }
}

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
 * Corrects a recorded payment: it becomes `reversed` and its amount goes back on the plan's balance through
 * the money core (a completed plan is active again), with a `payment.reversed` ledger entry and event.
 */
export async function reversePayment(
  ctx: AppContext,
  tenant: Tenant,
  id: string,
  input: PaymentReverse,
): Promise<Payment> {
  return inTransaction(ctx, async (trx) => {
    const reversed = await repo.markReversed(
      trx,
      tenant,
      id,
      tenant.clock.now().toISOString(),
      input.reason ?? null,
    );
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
  });
}

/** `POST /payments/{id}/apply`: an unapplied payment (credit) on a plan, in its own unit of work. */
export async function applyPaymentToPlan(
  ctx: AppContext,
  tenant: Tenant,
  id: string,
  input: PaymentApply,
): Promise<Payment> {
  try {
    return await inTransaction(ctx, (trx) => applyUnapplied(trx, tenant, id, input.trackId));
  } catch (error) {
    // Its reference, taken meanwhile by a payment of the same reference recorded at once: still a conflict of
    // references, never a 500.
    if (isUniqueViolation(error)) throw duplicateReference();
    throw error;
  }
}

export async function getPayment(ctx: AppContext, tenant: TenantRef, id: string): Promise<Payment> {
  const row = await repo.findById(ctx.db, tenant, id);
  if (!row) throw notFound('payment', id);
  return toApi(row);
}

export async function listPayments(
  ctx: AppContext,
  tenant: TenantRef,
  query: PaymentListQuery,
): Promise<Page<Payment>> {
  const range = instantRange(query);
  return paginate(
    query,
    'payment',
    (limit, afterId) => repo.list(ctx.db, tenant, { ...query, ...range, limit }, afterId),
    toApi,
  );
}

export async function listTrackPayments(
  ctx: AppContext,
  tenant: TenantRef,
  trackId: string,
  query: TrackPaymentListQuery,
): Promise<Page<Payment>> {
  await getTrackRow(ctx.db, tenant, trackId);
  return listPayments(ctx, tenant, { ...query, trackId });
}
