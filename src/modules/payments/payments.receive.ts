import { sql } from 'kysely';
import type { Trx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import type { Tenant } from '../../lib/tenant.js';
import { referenceKey } from '../../lib/text.js';
import { openOfPlanlessSchedule } from '../schedules/schedules.allocation.js';
import { lockTrack } from '../tracks/tracks.repository.js';
import { applyPayment, recordWithoutPlan, toApi } from './payments.money.js';
import * as repo from './payments.repository.js';
import type { Payment } from './payments.schemas.js';
import type { PaymentSource, UnappliedReason } from './payments.table.js';

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
    if (earlier) {
      const row = await repo.findById(trx, tenant, earlier.id);
      if (row) return { payment: toApi(row), credit: null, recorded: false };
    }
  }
  const source = money.source ?? 'provider';
  if (destination === null) {
    return {
      payment: await unapplied(trx, tenant, money, null, 'unknown_reference'),
      credit: null,
      recorded: true,
    };
  }
  if ('scheduleId' in destination) {
    const schedule = await lockSchedule(trx, tenant, destination.scheduleId);
    if (!schedule) {
      return {
        payment: await unapplied(trx, tenant, money, null, 'unknown_reference'),
        credit: null,
        recorded: true,
      };
    }
    const { customerId } = destination;
    if (schedule.currency !== money.currency) {
      const payment = await unapplied(trx, tenant, money, customerId, 'currency_mismatch');
      return { payment, credit: null, recorded: true };
    }
    const { open, owed } = await openOfPlanlessSchedule(trx, schedule.id, destination.obligationId ?? null);
    if (owed === 0) {
      return {
        payment: await unapplied(trx, tenant, money, customerId, 'overpayment'),
        credit: null,
        recorded: true,
      };
    }
    const part = Math.min(owed, money.amount);
    const payment = await recordWithoutPlan(
      trx,
      tenant,
      { ...money, source, amount: part },
      { customerId, obligations: open },
    );
    const credit =
      money.amount > part
        ? await unapplied(trx, tenant, money, customerId, 'overpayment', {
            amount: money.amount - part,
            splitFrom: payment.id,
          })
        : null;
    return { payment, credit, recorded: true };
  }
  const track = await lockTrack(trx, tenant, destination.trackId);
  if (!track) {
    return {
      payment: await unapplied(trx, tenant, money, null, 'unknown_reference'),
      credit: null,
      recorded: true,
    };
  }
  const whole = (reason: UnappliedReason) =>
    unapplied(trx, tenant, money, track.customer_id, reason, { planId: track.id });
  if (track.currency !== money.currency) {
    return { payment: await whole('currency_mismatch'), credit: null, recorded: true };
  }
  if (track.status !== 'active' || track.balance === 0) {
    return { payment: await whole('plan_closed'), credit: null, recorded: true };
  }
  const part = Math.min(track.balance, money.amount);
  const applied = await applyPayment(trx, tenant, {
    ...money,
    source,
    amount: part,
    trackId: track.id,
    obligationId: destination.obligationId ?? null,
  });
  // The plan is locked and its state checked, and the reference is new: nothing is left to refuse.
  if (!applied.ok) throw applied.refusal;
  const credit =
    money.amount > part
      ? await unapplied(trx, tenant, money, track.customer_id, 'overpayment', {
          amount: money.amount - part,
          planId: track.id,
          splitFrom: applied.payment.id,
        })
      : null;
  return { payment: applied.payment, credit, recorded: true };
}
