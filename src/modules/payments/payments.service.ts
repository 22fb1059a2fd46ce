import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { fieldError, notFound } from '../../lib/app-error.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { instantRange, toInstant } from '../../lib/instant.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import {
  applyPayment,
  applyUnapplied,
  duplicateReference,
  reversePayment as reverse,
  settleWithQuote,
} from '../../money/index.js';
import { toApi } from './payments.mapper.js';
import * as repo from './payments.repository.js';
import type {
  Payment,
  PaymentApply,
  PaymentCreate,
  PaymentListQuery,
  PaymentReverse,
} from './payments.schemas.js';
import { refundPayment } from './refunds.service.js';

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
    return await inTransaction(ctx, tenant, async (trx) => {
      const payment = {
        trackId: input.trackId,
        amount: input.amount,
        method: input.method ?? 'other',
        paidAt,
        reference: input.reference ?? null,
        source: 'api',
        metadata: input.metadata,
      } as const;
      const outcome =
        input.settlementQuoteId === undefined
          ? await applyPayment(trx, tenant, payment, 'recorded', true)
          : await settleWithQuote(trx, tenant, payment, input.settlementQuoteId);
      if (!outcome.ok) throw outcome.refusal;
      return outcome.payment;
    });
  } catch (error) {
    // Two requests with the same new reference at once: the unique index lets one through.
    if (isUniqueViolation(error)) throw duplicateReference();
    throw error;
  }
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
  if (input.refund) return refundPayment(ctx, tenant, id, input.reason ?? null);
  return inTransaction(ctx, tenant, (trx) => reverse(trx, tenant, id, input.reason ?? null));
}

/** `POST /payments/{id}/apply`: an unapplied payment (credit) on a plan, in its own unit of work. */
export async function applyPaymentToPlan(
  ctx: AppContext,
  tenant: Tenant,
  id: string,
  input: PaymentApply,
): Promise<Payment> {
  try {
    return await inTransaction(ctx, tenant, (trx) => applyUnapplied(trx, tenant, id, input.trackId));
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
