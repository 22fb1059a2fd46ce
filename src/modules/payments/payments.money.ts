import type { Trx } from '../../db/schema.js';
import { AppError, fieldError, invalidState, notFound } from '../../lib/app-error.js';
import { newId } from '../../lib/ids.js';
import { parseMetadata, stringifyMetadata } from '../../lib/json.js';
import type { Tenant } from '../../lib/tenant.js';
import { referenceKey } from '../../lib/text.js';
import { recordEvent } from '../../outbox/outbox.js';
import { appendEntry } from '../ledger/ledger.service.js';
import { allocatePayment, allocateToSchedule } from '../schedules/schedules.allocation.js';
import type { ObligationsTable } from '../schedules/schedules.table.js';
import { applyBalanceChange, type BalanceOutcome } from '../tracks/tracks.balance.js';
import { lockTrack } from '../tracks/tracks.repository.js';
import type { TracksTable } from '../tracks/tracks.table.js';
import * as repo from './payments.repository.js';
import type { Payment } from './payments.schemas.js';
import type { PaymentAllocation, PaymentSource, PaymentsTable, UnappliedReason } from './payments.table.js';

/** Money no plan took yet: the customer's credit. Its reason stays once it is applied. */
export const isUnapplied = (row: Pick<PaymentsTable, 'unapplied_reason' | 'status' | 'track_id'>) =>
  row.unapplied_reason !== null && row.status === 'recorded' && row.track_id === null;

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
    unallocatedAmount: row.status === 'recorded' ? row.amount - allocated : 0,
    unapplied: isUnapplied(row),
    unappliedReason: row.unapplied_reason,
    splitFrom: row.split_from,
    splitInto: row.split_into === null ? [] : (JSON.parse(row.split_into) as string[]),
  };
}

export const duplicateReference = () =>
  fieldError({
    reference:
      'is already used by another payment in this workspace (references are compared ignoring case, spaces at the ends and invisible characters)',
  });

/** What every new payment row shares, whatever way the money came in. */
interface PaymentFacts {
  amount: number;
  currency: string;
  method: Payment['method'];
  /** Stored form (`toInstant`). */
  paidAt: string;
  reference: string | null;
  source: PaymentSource;
  metadata: Record<string, string> | undefined;
  /** The payment this one was split from (the one whose excess it is, or the unapplied one it is a part of). */
  splitFrom?: string | null;
  /** Its id, when the caller had to know it first (a split names its parts). */
  id?: string;
}

function paymentRow(
  tenant: Tenant,
  id: string,
  at: Date,
  facts: PaymentFacts,
  placed: {
    trackId: string | null;
    customerId: string | null;
    allocations: PaymentAllocation[];
    unappliedReason: UnappliedReason | null;
  },
): PaymentsTable {
  return {
    id,
    workspace_id: tenant.workspaceId,
    mode: tenant.mode,
    track_id: placed.trackId,
    customer_id: placed.customerId,
    amount: facts.amount,
    currency: facts.currency,
    method: facts.method,
    status: 'recorded',
    paid_at: facts.paidAt,
    reference: facts.reference,
    reference_key: facts.reference === null ? null : referenceKey(facts.reference),
    source: facts.source,
    metadata: stringifyMetadata(facts.metadata),
    created_at: at.toISOString(),
    reversed_at: null,
    reversal_reason: null,
    allocations: JSON.stringify(placed.allocations),
    unapplied_reason: placed.unappliedReason,
    split_from: facts.splitFrom ?? null,
    split_into: null,
  };
}

/** A reference given with a payment, in the form references are compared in; refused when empty or taken. */
export async function checkReference(
  trx: Trx,
  tenant: Tenant,
  reference: string | null,
): Promise<AppError | null> {
  if (reference === null) return null;
  const key = referenceKey(reference);
  if (key === '') return fieldError({ reference: 'must contain visible characters' });
  if (await repo.findByReferenceKey(trx, tenant, key)) return duplicateReference();
  return null;
}

export interface NewPayment extends Omit<PaymentFacts, 'currency'> {
  trackId: string;
  /** The obligation the money was collected for (its checkout, its attempt): it is paid first. */
  obligationId?: string | null;
}

/** An ordinary "no" is a value: the caller decides whether it ends its transaction. */
export type PaymentOutcome =
  | { ok: true; payment: Payment; track: TracksTable }
  | { ok: false; refusal: AppError };

/** Why the money core refused to put money on a plan, as the error a request gets. */
function refusalOf(
  outcome: Exclude<BalanceOutcome, { ok: true }>,
  trackId: string,
  amount: number,
): AppError {
  if (outcome.reason === 'not_found') return notFound('track', trackId, 'trackId');
  const { track } = outcome;
  if (outcome.reason === 'invalid_state') return invalidState('track', track.status, 'record_payment');
  return new AppError(
    'amount_exceeds_balance',
    `The payment of ${amount} is more than the plan's remaining balance of ${track.balance}.`,
    { balance: track.balance, amount, currency: track.currency },
  );
}

/**
 * Puts a payment's amount on a plan through the money core: the balance drops (ledger entry `entryType`), then
 * the plan's open obligations are paid (the named one first).
 */
async function placeOnPlan(
  trx: Trx,
  tenant: Tenant,
  place: {
    paymentId: string;
    trackId: string;
    amount: number;
    entryType: 'payment.recorded' | 'payment.applied';
    occurredAt?: string;
    obligationId?: string | null;
  },
): Promise<
  { ok: true; track: TracksTable; allocations: PaymentAllocation[] } | { ok: false; refusal: AppError }
> {
  const outcome = await applyBalanceChange(trx, tenant, {
    trackId: place.trackId,
    amountDelta: 0,
    paidDelta: place.amount,
    from: ['active'],
    entry: {
      type: place.entryType,
      ...(place.occurredAt ? { occurredAt: place.occurredAt } : {}),
      refs: { paymentId: place.paymentId },
    },
  });
  if (!outcome.ok) return { ok: false, refusal: refusalOf(outcome, place.trackId, place.amount) };
  const allocations = await allocatePayment(
    trx,
    tenant,
    outcome.track,
    { id: place.paymentId, amount: place.amount },
    place.obligationId ?? null,
  );
  return { ok: true, track: outcome.track, allocations };
}

/**
 * Records a payment on a plan inside the caller's transaction: the plan's balance drops through the money core,
 * then the payment row and its event are written. Every payment on a plan goes through here; the part of an
 * unapplied payment applied to a plan (`applied`) is not new money: its ledger entry and event say
 * `payment.applied`.
 */
export async function applyPayment(
  trx: Trx,
  tenant: Tenant,
  input: NewPayment,
  as: 'recorded' | 'applied' = 'recorded',
): Promise<PaymentOutcome> {
  const badReference = await checkReference(trx, tenant, input.reference);
  if (badReference) return { ok: false, refusal: badReference };
  const at = tenant.clock.now();
  const id = input.id ?? newId('payment', at);
  const placed = await placeOnPlan(trx, tenant, {
    paymentId: id,
    trackId: input.trackId,
    amount: input.amount,
    entryType: as === 'recorded' ? 'payment.recorded' : 'payment.applied',
    ...(as === 'recorded' ? { occurredAt: input.paidAt } : {}),
    obligationId: input.obligationId ?? null,
  });
  if (!placed.ok) return placed;
  const { track, allocations } = placed;
  const row = paymentRow(
    tenant,
    id,
    at,
    { ...input, currency: track.currency },
    { trackId: track.id, customerId: track.customer_id, allocations, unappliedReason: null },
  );
  await repo.insert(trx, row);
  const payment = toApi(row);
  await recordEvent(trx, tenant, as === 'recorded' ? 'payment.recorded' : 'payment.applied', {
    ...payment,
    balanceAfter: track.balance,
  });
  return { ok: true, payment, track };
}

/** The customer-level ledger entry of money that is on no plan's balance (a payment without a plan, or its reversal). */
export function planlessEntry(
  trx: Trx,
  tenant: Tenant,
  type: 'payment.recorded' | 'payment.reversed' | 'payment.applied',
  payment: Pick<PaymentsTable, 'id' | 'customer_id' | 'currency'>,
  amount: number,
  occurredAt?: string,
  refs: Record<string, string> = {},
) {
  return appendEntry(trx, tenant, {
    type,
    trackId: null,
    customerId: payment.customer_id,
    amount,
    balanceAfter: null,
    currency: payment.currency,
    ...(occurredAt ? { occurredAt } : {}),
    refs: { paymentId: payment.id, ...refs },
  });
}

/**
 * Records money that is on no plan, in the caller's transaction: a collection for a schedule without a plan
 * (it pays that schedule's open obligations given, at most what they owe), or, with `unapplied`, money no plan
 * took, kept as its customer's credit for the business to apply or refund (event `payment.unapplied` too). The
 * customer's ledger shows it; no request can record such a payment.
 */
export async function recordWithoutPlan(
  trx: Trx,
  tenant: Tenant,
  facts: PaymentFacts,
  placed: {
    customerId: string | null;
    obligations?: readonly ObligationsTable[];
    unapplied?: { reason: UnappliedReason; planId?: string | null; message: string };
    /** False for a part split from a payment already counted: no ledger entry or `payment.recorded` of its own. */
    fresh?: boolean;
  },
): Promise<Payment> {
  const fresh = placed.fresh ?? true;
  const at = tenant.clock.now();
  const id = facts.id ?? newId('payment', at);
  const allocations = placed.obligations
    ? await allocateToSchedule(trx, tenant, placed.obligations, {
        id,
        amount: facts.amount,
        customerId: placed.customerId,
      })
    : [];
  const { unapplied } = placed;
  const metadata = unapplied
    ? {
        ...facts.metadata,
        unapplied: unapplied.message.slice(0, 500),
        ...(unapplied.planId ? { planId: unapplied.planId } : {}),
      }
    : facts.metadata;
  const row = paymentRow(
    tenant,
    id,
    at,
    { ...facts, metadata },
    { trackId: null, customerId: placed.customerId, allocations, unappliedReason: unapplied?.reason ?? null },
  );
  if (fresh) await planlessEntry(trx, tenant, 'payment.recorded', row, -row.amount, row.paid_at);
  await repo.insert(trx, row);
  const payment = toApi(row);
  if (fresh) await recordEvent(trx, tenant, 'payment.recorded', { ...payment, balanceAfter: null });
  if (unapplied) await recordEvent(trx, tenant, 'payment.unapplied', { ...payment, balanceAfter: null });
  return payment;
}

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
