import type { DbOrTrx, Trx } from '../db/schema.js';
import { AppError, fieldError, notFound } from '../lib/app-error.js';
import { newId } from '../lib/ids.js';
import type { Tenant, TenantRef } from '../lib/tenant.js';
import * as obligations from '../modules/schedules/obligations.repository.js';
import { discountOf } from '../modules/schedules/schedules.discount.js';
import * as schedules from '../modules/schedules/schedules.repository.js';
import type { EarlySettlementDiscount } from '../modules/schedules/schedules.table.js';
import * as quotes from '../modules/tracks/settlement-quotes.repository.js';
import { lockTrack } from '../modules/tracks/tracks.repository.js';
import type { TracksTable } from '../modules/tracks/tracks.table.js';
import { applyBalanceChange } from './balance.js';
import { applyPayment, type NewPayment, type PaymentOutcome } from './payments.js';
import { trimToBalance } from './trim.js';

/** A schedule's discount on what its instalments due after the quote's date still ask, in integers. */
function discountOn(notDue: number, policy: EarlySettlementDiscount | null): number {
  if (policy === null || notDue <= 0) return 0;
  if (policy.type === 'fixed') return Math.min(policy.value, notDue);
  const basisPoints = BigInt(Math.round(policy.value * 100));
  return Number((BigInt(notDue) * basisPoints + 5000n) / 10000n);
}

/**
 * What clears an active plan on `asOf`: its balance less the early-settlement discount each schedule gives on
 * its own open instalments due after `asOf` (less than the balance in all), and what its open fees still ask
 * (already inside the balance).
 */
export async function settlementFigures(
  db: DbOrTrx,
  tenant: TenantRef,
  track: TracksTable,
  asOf: string,
): Promise<{ discount: number; feesIncluded: number }> {
  const open = await obligations.openOfTrackLatestFirst(db, track.id);
  let feesIncluded = 0;
  const notDue = new Map<string, number>();
  for (const o of open) {
    const asks = o.amount - o.amount_paid;
    if (o.kind === 'fee') feesIncluded += asks;
    else if (o.due_date > asOf) notDue.set(o.schedule_id, (notDue.get(o.schedule_id) ?? 0) + asks);
  }
  let discount = 0;
  for (const [scheduleId, asks] of notDue) {
    const schedule = await schedules.findRow(db, tenant, scheduleId);
    discount += discountOn(asks, discountOf(schedule?.early_settlement_discount ?? null));
  }
  return { discount: Math.max(0, Math.min(discount, track.balance - 1)), feesIncluded };
}

function quoteRefused(message: string, status: string, details: Record<string, unknown> = {}): AppError {
  return new AppError('invalid_state', message, {
    status,
    action: 'settle',
    field: 'settlementQuoteId',
    ...details,
  });
}

/**
 * A payment that settles its plan with a quote, in the caller's transaction: the quote is taken (once), the
 * plan must still have the balance it was quoted on, the payment is recorded as any other, then the discount
 * leaves the balance through the money core (`plan.settlement_discount`) and the plan's open obligations are
 * closed: the plan completes.
 */
export async function settleWithQuote(
  trx: Trx,
  tenant: Tenant,
  input: NewPayment,
  quoteId: string,
): Promise<PaymentOutcome> {
  const refuse = (refusal: AppError): PaymentOutcome => ({ ok: false, refusal });
  const quote = await quotes.findById(trx, tenant, quoteId);
  if (!quote) return refuse(notFound('settlement quote', quoteId, 'settlementQuoteId'));
  if (quote.track_id !== input.trackId) {
    return refuse(fieldError({ settlementQuoteId: `is a quote of plan ${quote.track_id}, not of trackId` }));
  }
  if (input.amount !== quote.amount) {
    return refuse(
      new AppError('validation_error', `A payment with this quote must be its amount, ${quote.amount}.`, {
        fields: { amount: `must be the quote's amount, ${quote.amount}` },
        quoteAmount: quote.amount,
        currency: quote.currency,
      }),
    );
  }
  const used = () =>
    quoteRefused('The settlement quote was already used by a payment.', 'used', {
      usedByPaymentId: quote.used_by_payment_id,
    });
  if (quote.used_by_payment_id !== null) return refuse(used());
  const now = tenant.clock.now();
  if (now.toISOString() >= quote.valid_until) {
    return refuse(
      quoteRefused(`The settlement quote expired at ${quote.valid_until}.`, 'expired', {
        validUntil: quote.valid_until,
      }),
    );
  }
  const paymentId = input.id ?? newId('payment', now);
  if (!(await quotes.markUsed(trx, tenant, quote.id, paymentId))) return refuse(used());
  const track = await lockTrack(trx, tenant, quote.track_id);
  if (track?.status !== 'active' || track.balance !== quote.balance_at_quote) {
    return refuse(
      quoteRefused('The plan changed since the quote: ask for a new one.', 'changed', {
        balanceAtQuote: quote.balance_at_quote,
        balance: track?.balance ?? null,
      }),
    );
  }
  const paid = await applyPayment(trx, tenant, { ...input, id: paymentId });
  if (!paid.ok) return paid;
  const refs = { settlementQuoteId: quote.id, paymentId };
  let settled = paid.track;
  if (quote.discount > 0) {
    const outcome = await applyBalanceChange(trx, tenant, {
      trackId: quote.track_id,
      amountDelta: -quote.discount,
      paidDelta: 0,
      from: ['active'],
      entry: { type: 'plan.settlement_discount', refs },
    });
    if (!outcome.ok)
      throw new Error(`the settlement discount of quote ${quote.id} was refused: ${outcome.reason}`);
    settled = outcome.track;
  }
  await trimToBalance(trx, tenant, settled, refs);
  return { ok: true, payment: paid.payment, track: settled };
}
