import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Trx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { recordEvent } from '../../events/outbox.js';
import { AppError, fieldError, invalidState, notFound } from '../../lib/app-error.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { instantRange, toInstant } from '../../lib/instant.js';
import { parseMetadata, stringifyMetadata } from '../../lib/json.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import { referenceKey } from '../../lib/text.js';
import { appendEntry } from '../ledger/ledger.service.js';
import { allocatePayment, allocateToObligation, undoAllocations } from '../schedules/schedules.allocation.js';
import type { ObligationsTable } from '../schedules/schedules.table.js';
import { applyBalanceChange } from '../tracks/tracks.balance.js';
import { getTrackRow } from '../tracks/tracks.service.js';
import type { TracksTable } from '../tracks/tracks.table.js';
import * as repo from './payments.repository.js';
import type {
  Payment,
  PaymentCreate,
  PaymentListQuery,
  PaymentReverse,
  TrackPaymentListQuery,
} from './payments.schemas.js';
import type { PaymentAllocation, PaymentSource, PaymentsTable } from './payments.table.js';

/** Clocks drift; a payment a few minutes "ahead" is still accepted. */
const FUTURE_TOLERANCE_MS = 5 * 60 * 1000;

export function toApi(row: PaymentsTable): Payment {
  const allocations = JSON.parse(row.allocations) as PaymentAllocation[];
  const allocated = allocations.reduce((sum, a) => sum + (a.reversedAt === null ? a.amount : 0), 0);
  return {
    id: row.id,
    trackId: row.track_id,
    customerId: row.customer_id,
    amount: row.amount,
    currency: row.currency,
    method: row.method as Payment['method'],
    status: row.status,
    paidAt: row.paid_at,
    reference: row.reference,
    source: row.source,
    metadata: parseMetadata(row.metadata),
    createdAt: row.created_at,
    reversedAt: row.reversed_at,
    reversalReason: row.reversal_reason,
    allocations,
    unallocatedAmount: row.status === 'reversed' ? 0 : row.amount - allocated,
  };
}

const duplicateReference = () =>
  fieldError({
    reference:
      'is already used by another payment in this workspace (references are compared ignoring case, spaces at the ends and invisible characters)',
  });

export interface NewPayment {
  trackId: string;
  amount: number;
  method: Payment['method'];
  /** Stored form (`toInstant`). */
  paidAt: string;
  reference: string | null;
  source: PaymentSource;
  metadata: Record<string, string> | undefined;
}

/** An ordinary "no" is a value: the caller decides whether it ends its transaction. */
export type PaymentOutcome =
  | { ok: true; payment: Payment; track: TracksTable }
  | { ok: false; refusal: AppError };

/**
 * Records a payment inside the caller's transaction: the plan's balance drops through the money core, then
 * the payment row and its event are written. Every way money comes in (the API, collection attempts, provider
 * notifications) goes through here.
 */
export async function applyPayment(trx: Trx, tenant: Tenant, input: NewPayment): Promise<PaymentOutcome> {
  const referenceKeyed = input.reference === null ? null : referenceKey(input.reference);
  if (referenceKeyed === '') {
    return { ok: false, refusal: fieldError({ reference: 'must contain visible characters' }) };
  }
  if (referenceKeyed !== null && (await repo.findByReferenceKey(trx, tenant, referenceKeyed))) {
    return { ok: false, refusal: duplicateReference() };
  }
  const at = tenant.clock.now();
  const id = newId('payment', at);
  const outcome = await applyBalanceChange(trx, tenant, {
    trackId: input.trackId,
    amountDelta: 0,
    paidDelta: input.amount,
    from: ['active'],
    entry: { type: 'payment.recorded', occurredAt: input.paidAt, refs: { paymentId: id } },
  });
  if (!outcome.ok) {
    if (outcome.reason === 'not_found')
      return { ok: false, refusal: notFound('track', input.trackId, 'trackId') };
    const { track } = outcome;
    if (outcome.reason === 'invalid_state') {
      return { ok: false, refusal: invalidState('track', track.status, 'record_payment') };
    }
    return {
      ok: false,
      refusal: new AppError(
        'amount_exceeds_balance',
        `The payment of ${input.amount} is more than the plan's remaining balance of ${track.balance}.`,
        { balance: track.balance, amount: input.amount, currency: track.currency },
      ),
    };
  }
  const { track } = outcome;
  const row: PaymentsTable = {
    id,
    workspace_id: tenant.workspaceId,
    mode: tenant.mode,
    track_id: track.id,
    customer_id: track.customer_id,
    amount: input.amount,
    currency: track.currency,
    method: input.method,
    status: 'recorded',
    paid_at: input.paidAt,
    reference: input.reference,
    reference_key: referenceKeyed,
    source: input.source,
    metadata: stringifyMetadata(input.metadata),
    created_at: at.toISOString(),
    reversed_at: null,
    reversal_reason: null,
    allocations: JSON.stringify(await allocatePayment(trx, tenant, track, { id, amount: input.amount })),
  };
  await repo.insert(trx, row);
  const payment = toApi(row);
  await recordEvent(trx, tenant, 'payment.recorded', { ...payment, balanceAfter: track.balance });
  return { ok: true, payment, track };
}

export interface PaymentWithoutPlan {
  customerId: string;
  amount: number;
  currency: string;
  method: Payment['method'];
  paidAt: string;
  source: PaymentSource;
  metadata: Record<string, string>;
  /** The obligation of a schedule without a plan it was collected for; null for money no plan could take. */
  obligation: ObligationsTable | null;
}

/**
 * Records money a provider collected that belongs to no plan, in the caller's transaction: a collection for a
 * schedule without a plan (it pays that obligation), or a collection its plan refused (paid off or archived
 * meanwhile; it stays unallocated, for the business to refund or apply). `trackId` is null; the customer's
 * ledger shows it; no request can record such a payment.
 */
export async function applyPaymentWithoutPlan(
  trx: Trx,
  tenant: Tenant,
  input: PaymentWithoutPlan,
): Promise<Payment> {
  const at = tenant.clock.now();
  const id = newId('payment', at);
  const allocations = input.obligation
    ? await allocateToObligation(trx, tenant, input.obligation, {
        id,
        amount: input.amount,
        customerId: input.customerId,
      })
    : [];
  const row: PaymentsTable = {
    id,
    workspace_id: tenant.workspaceId,
    mode: tenant.mode,
    track_id: null,
    customer_id: input.customerId,
    amount: input.amount,
    currency: input.currency,
    method: input.method,
    status: 'recorded',
    paid_at: input.paidAt,
    reference: null,
    reference_key: null,
    source: input.source,
    metadata: stringifyMetadata(input.metadata),
    created_at: at.toISOString(),
    reversed_at: null,
    reversal_reason: null,
    allocations: JSON.stringify(allocations),
  };
  await appendEntry(trx, tenant, {
    type: 'payment.recorded',
    trackId: null,
    customerId: input.customerId,
    amount: -input.amount,
    balanceAfter: null,
    currency: input.currency,
    occurredAt: input.paidAt,
    refs: { paymentId: id },
  });
  await repo.insert(trx, row);
  const payment = toApi(row);
  await recordEvent(trx, tenant, 'payment.recorded', { ...payment, balanceAfter: null });
  return payment;
}

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
    await appendEntry(trx, tenant, {
      ...entry,
      trackId: null,
      customerId: reversed.customer_id,
      amount: reversed.amount,
      balanceAfter: null,
      currency: reversed.currency,
    });
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
