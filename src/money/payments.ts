import { randomUUID } from 'node:crypto';
import { dialectOf } from '../db/dialect.js';
import type { Trx } from '../db/schema.js';
import { rowsOf } from '../db/shaped-statements.js';
import { leaveForCommit } from '../db/unit-of-work.js';
import { AppError, invalidState, notFound } from '../lib/app-error.js';
import { newId } from '../lib/ids.js';
import { newReceiptCode } from '../lib/receipt-codes.js';
import type { Tenant } from '../lib/tenant.js';
import { appendEntry } from '../modules/ledger/ledger.service.js';
import { toApi } from '../modules/payments/payments.mapper.js';
import * as repo from '../modules/payments/payments.repository.js';
import type { Payment } from '../modules/payments/payments.schemas.js';
import type {
  PaymentAllocation,
  PaymentsTable,
  UnappliedReason,
} from '../modules/payments/payments.table.js';
import type { ObligationsTable } from '../modules/schedules/schedules.table.js';
import type { TracksTable } from '../modules/tracks/tracks.table.js';
import { eventRow, recordEvent, recordEvents } from '../outbox/outbox.js';
import { allocatePayment, allocateToSchedule } from './allocation.js';
import { applyBalanceChange, type BalanceOutcome } from './balance.js';
import type { DeferredWrites } from './deferred-writes.js';
import { issueReceipt, type PaymentFacts, paymentRow } from './payment-rows.js';
import { paymentStatement, type WrittenPayment } from './payment-statement.js';
import { checkReference } from './references.js';

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
export async function placeOnPlan(
  trx: Trx,
  tenant: Tenant,
  place: {
    paymentId: string;
    trackId: string;
    amount: number;
    entryType: 'payment.recorded' | 'payment.applied';
    occurredAt?: string;
    obligationId?: string | null;
    /** Given, writes left for the caller's last statement (`DeferredWrites`). */
    deferred?: DeferredWrites;
  },
): Promise<
  { ok: true; track: TracksTable; allocations: PaymentAllocation[] } | { ok: false; refusal: AppError }
> {
  const outcome = await applyBalanceChange(
    trx,
    tenant,
    {
      trackId: place.trackId,
      amountDelta: 0,
      paidDelta: place.amount,
      from: ['active'],
      readOpen: true,
      entry: {
        type: place.entryType,
        ...(place.occurredAt ? { occurredAt: place.occurredAt } : {}),
        refs: { paymentId: place.paymentId },
      },
    },
    place.deferred?.events,
  );
  if (!outcome.ok) return { ok: false, refusal: refusalOf(outcome, place.trackId, place.amount) };
  const allocations = await allocatePayment(
    trx,
    tenant,
    outcome.track,
    { id: place.paymentId, amount: place.amount },
    place.obligationId ?? null,
    place.deferred,
    outcome.open,
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
  /** The caller's unit of work does nothing on `trx` after this payment: its last statement may go with the commit. */
  last = false,
): Promise<PaymentOutcome> {
  const badReference = await checkReference(trx, tenant, input.reference);
  if (badReference) return { ok: false, refusal: badReference };
  const at = tenant.clock.now();
  const id = input.id ?? newId('payment', at);
  // The plan's events are written with the payment's own, in one statement; on PostgreSQL a fresh payment's
  // last statement also takes its receipt number, writes its row and its part in an open obligation.
  const oneStatement = as === 'recorded' && dialectOf(trx) === 'postgres';
  const deferred: DeferredWrites = { events: [], obligationPart: oneStatement ? null : undefined };
  const placed = await placeOnPlan(trx, tenant, {
    deferred,
    paymentId: id,
    trackId: input.trackId,
    amount: input.amount,
    entryType: as === 'recorded' ? 'payment.recorded' : 'payment.applied',
    ...(as === 'recorded' ? { occurredAt: input.paidAt } : {}),
    obligationId: input.obligationId ?? null,
  });
  if (!placed.ok) return placed;
  const { track, allocations } = placed;
  const facts = { ...input, currency: track.currency };
  const placement = {
    trackId: track.id,
    customerId: track.customer_id,
    allocations,
    unappliedReason: null,
    balanceAfter: track.balance,
  };
  const type = as === 'recorded' ? 'payment.recorded' : 'payment.applied';
  if (oneStatement) {
    const row = paymentRow(tenant, id, at, facts, {
      ...placement,
      receipt: { number: 0, code: newReceiptCode() },
    });
    const numberToken = randomUUID();
    const withToken = toApi(row);
    if (withToken.receipt) withToken.receipt.number = numberToken;
    const event = eventRow(tenant, type, { ...withToken, balanceAfter: track.balance });
    const statement = paymentStatement(
      trx,
      { workspaceId: tenant.workspaceId, mode: tenant.mode },
      row,
      [...deferred.events, event],
      numberToken,
      deferred.obligationPart ?? null,
    );
    const settle = (written: WrittenPayment) => {
      row.receipt_number = Number(written.last_number);
      return toApi(row);
    };
    // Sent with the commit, the payment answers with the token in its receipt number until the statement has run.
    const left =
      last &&
      leaveForCommit(trx, {
        query: statement,
        token: numberToken,
        settle: (written) => Object.assign(withToken, settle(written as WrittenPayment)),
      });
    if (left) return { ok: true, payment: withToken, track };
    const [written] = await rowsOf(trx, statement);
    if (!written) throw new Error('the payment statement returned no row');
    return { ok: true, payment: settle(written), track };
  }
  const receipt = as === 'recorded' ? await issueReceipt(trx, tenant) : null;
  const row = paymentRow(tenant, id, at, facts, { ...placement, receipt });
  await repo.insert(trx, row);
  const payment = toApi(row);
  await recordEvents(trx, [
    ...deferred.events,
    eventRow(tenant, type, { ...payment, balanceAfter: track.balance }),
  ]);
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
    {
      trackId: null,
      customerId: placed.customerId,
      allocations,
      unappliedReason: unapplied?.reason ?? null,
      receipt: fresh ? await issueReceipt(trx, tenant) : null,
      balanceAfter: null,
    },
  );
  if (fresh) await planlessEntry(trx, tenant, 'payment.recorded', row, -row.amount, row.paid_at);
  await repo.insert(trx, row);
  const payment = toApi(row);
  if (fresh) await recordEvent(trx, tenant, 'payment.recorded', { ...payment, balanceAfter: null });
  if (unapplied) await recordEvent(trx, tenant, 'payment.unapplied', { ...payment, balanceAfter: null });
  return payment;
}
