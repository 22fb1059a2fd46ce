import { sql } from 'kysely';
import type { Trx } from '../db/schema.js';
import { inTenant } from '../db/scoping.js';
import type { Tenant } from '../lib/tenant.js';
import { referenceKey } from '../lib/text.js';
import { toApi } from '../modules/payments/payments.mapper.js';
import * as repo from '../modules/payments/payments.repository.js';
import type { Payment } from '../modules/payments/payments.schemas.js';
import type { PaymentSource, UnappliedReason } from '../modules/payments/payments.table.js';
import { lockTrack } from '../modules/tracks/tracks.repository.js';
import { openOfPlanlessSchedule } from './allocation.js';
import { applyPayment, recordWithoutPlan } from './payments.js';

/** Where money a provider reports was meant to go, as far as its reference tells. */
export type Destination =
  /** A plan (a virtual account's, a checkout's, an attempt's), and the obligation it was collected for. */
  | { trackId: string; obligationId?: string | null }
  /** A schedule without a plan, and the payer when known (its mandate's). */
  | { scheduleId: string; obligationId?: string | null; customerId: string | null }
  /** Nothing this workspace knows. */
  | null;

export interface ProviderMoney {
  amount: number;
  currency: string;
  method: Payment['method'];
  paidAt: string;
  /** Unique per report (the provider's notification id, say): a report seen before is not recorded again. */
  reference: string | null;
  metadata: Record<string, string>;
  source?: PaymentSource;
  /** The provider that took the money, and its own reference of it: what a refund names. */
  provider?: string | null;
  providerReference?: string | null;
}

export interface Received {
  /** The payment on the plan (or schedule), or the whole amount unapplied when no part could be applied. */
  payment: Payment;
  /** The excess kept as the customer's credit, when the money was more than was owed. */
  credit: Payment | null;
  /** False when `reference` was recorded before: `payment` is that earlier one. */
  recorded: boolean;
}

/** The schedule's row, locked for the rest of the transaction (a write of nothing: a row lock on both databases). */
function lockSchedule(trx: Trx, tenant: Tenant, id: string) {
  return trx
    .updateTable('schedules')
    .set({ updated_at: sql`updated_at` })
    .where('id', '=', id)
    .where(inTenant(tenant))
    .returningAll()
    .executeTakeFirst();
}

const MESSAGES: Record<UnappliedReason, string> = {
  overpayment: 'More than was owed: the excess is the customer’s credit, to apply to a plan or refund.',
  plan_closed: 'The plan was completed or archived when the money arrived: it is the customer’s credit.',
  currency_mismatch: 'The money is in another currency than the plan: it is the customer’s credit.',
  unknown_reference: 'The reference matches nothing in this workspace: apply it to a plan or refund it.',
};

function unapplied(
  trx: Trx,
  tenant: Tenant,
  money: ProviderMoney,
  customerId: string | null,
  reason: UnappliedReason,
  extra: { amount?: number; planId?: string | null; splitFrom?: string | null } = {},
) {
  const message =
    reason === 'currency_mismatch' ? `${MESSAGES[reason]} (${money.currency} received)` : MESSAGES[reason];
  return recordWithoutPlan(
    trx,
    tenant,
    {
      ...money,
      source: money.source ?? 'provider',
      amount: extra.amount ?? money.amount,
      // The reference stays with the part that was applied.
      reference: extra.splitFrom ? null : money.reference,
      splitFrom: extra.splitFrom ?? null,
    },
    { customerId, unapplied: { reason, planId: extra.planId ?? null, message } },
  );
}

/** The whole amount unapplied: nothing of it could go on a plan. */
async function wholly(
  trx: Trx,
  tenant: Tenant,
  money: ProviderMoney,
  customerId: string | null,
  reason: UnappliedReason,
  planId: string | null = null,
): Promise<Received> {
  const payment = await unapplied(trx, tenant, money, customerId, reason, { planId });
  return { payment, credit: null, recorded: true };
}

/** The excess of money over what was owed, kept as the customer's credit beside the payment that took the rest. */
function excessOf(
  trx: Trx,
  tenant: Tenant,
  money: ProviderMoney,
  customerId: string | null,
  paid: Payment,
  planId: string | null = null,
) {
  if (money.amount === paid.amount) return null;
  return unapplied(trx, tenant, money, customerId, 'overpayment', {
    amount: money.amount - paid.amount,
    planId,
    splitFrom: paid.id,
  });
}

/** Money for a schedule without a plan: its open obligations (the named one first), the excess as credit. */
async function receiveForSchedule(
  trx: Trx,
  tenant: Tenant,
  money: ProviderMoney,
  destination: { scheduleId: string; obligationId?: string | null; customerId: string | null },
): Promise<Received> {
  const { customerId } = destination;
  const schedule = await lockSchedule(trx, tenant, destination.scheduleId);
  if (!schedule) return wholly(trx, tenant, money, null, 'unknown_reference');
  if (schedule.currency !== money.currency)
    return wholly(trx, tenant, money, customerId, 'currency_mismatch');
  const { open, owed } = await openOfPlanlessSchedule(trx, schedule.id, destination.obligationId ?? null);
  if (owed === 0) return wholly(trx, tenant, money, customerId, 'overpayment');
  const payment = await recordWithoutPlan(
    trx,
    tenant,
    { ...money, source: money.source ?? 'provider', amount: Math.min(owed, money.amount) },
    { customerId, obligations: open },
  );
  return { payment, credit: await excessOf(trx, tenant, money, customerId, payment), recorded: true };
}

/** Money for a plan: as far as its balance goes (the named obligation first), the excess as credit. */
async function receiveForPlan(
  trx: Trx,
  tenant: Tenant,
  money: ProviderMoney,
  destination: { trackId: string; obligationId?: string | null },
): Promise<Received> {
  const track = await lockTrack(trx, tenant, destination.trackId);
  if (!track) return wholly(trx, tenant, money, null, 'unknown_reference');
  if (track.currency !== money.currency) {
    return wholly(trx, tenant, money, track.customer_id, 'currency_mismatch', track.id);
  }
  if (track.status !== 'active' || track.balance === 0) {
    return wholly(trx, tenant, money, track.customer_id, 'plan_closed', track.id);
  }
  const applied = await applyPayment(trx, tenant, {
    ...money,
    source: money.source ?? 'provider',
    amount: Math.min(track.balance, money.amount),
    trackId: track.id,
    obligationId: destination.obligationId ?? null,
  });
  // The plan is locked and its state checked, and the reference is new: nothing is left to refuse.
  if (!applied.ok) throw applied.refusal;
  const credit = await excessOf(trx, tenant, money, track.customer_id, applied.payment, track.id);
  return { payment: applied.payment, credit, recorded: true };
}

/**
 * Money a provider reports (a transfer, a checkout, a charge) is always recorded, in the caller's transaction:
 * on its plan as far as the plan's balance goes (the obligation it was collected for first, then the rest oldest
 * first), the excess as the customer's credit; wholly as credit when the plan is closed or in another currency,
 * or when the reference names nothing. Never refused, never only in an internal table.
 */
export async function receiveProviderMoney(
  trx: Trx,
  tenant: Tenant,
  money: ProviderMoney,
  destination: Destination,
): Promise<Received> {
  if (money.reference !== null) {
    const key = referenceKey(money.reference);
    const earlier = key === '' ? undefined : await repo.findByReferenceKey(trx, tenant, key);
    const row = earlier ? await repo.findById(trx, tenant, earlier.id) : undefined;
    if (row) return { payment: toApi(row), credit: null, recorded: false };
  }
  if (destination === null) return wholly(trx, tenant, money, null, 'unknown_reference');
  if ('scheduleId' in destination) return receiveForSchedule(trx, tenant, money, destination);
  return receiveForPlan(trx, tenant, money, destination);
}
