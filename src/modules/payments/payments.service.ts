import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { AppError, fieldError, invalidState, notFound } from '../../lib/app-error.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { instantRange, toInstant } from '../../lib/instant.js';
import { parseMetadata, stringifyMetadata } from '../../lib/json.js';
import { recordEvent } from '../events/events.service.js';
import { appendEntry } from '../ledger/ledger.service.js';
import type { Tenant } from '../tenant.js';
import * as tracksRepo from '../tracks/tracks.repository.js';
import { getTrackRow, toApi as trackToApi } from '../tracks/tracks.service.js';
import * as repo from './payments.repository.js';
import type { Payment, PaymentCreate, PaymentListQuery, TrackPaymentListQuery } from './payments.schemas.js';
import type { PaymentsTable } from './payments.table.js';

/** Clocks drift; a payment a few minutes "ahead" is still accepted. */
const FUTURE_TOLERANCE_MS = 5 * 60 * 1000;

export function toApi(row: PaymentsTable): Payment {
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
  };
}

const duplicateReference = () =>
  fieldError({ reference: 'is already used by another payment in this workspace' });

/**
 * Records a payment: the balance drops in one atomic statement, then the payment, its ledger entry and
 * its events are written in the same transaction. Exact under any number of concurrent payments.
 */
export async function recordPayment(ctx: AppContext, tenant: Tenant, input: PaymentCreate): Promise<Payment> {
  const now = ctx.clock.now();
  const paidAt = input.paidAt ? toInstant(input.paidAt, 'paidAt') : now.toISOString();
  if (new Date(paidAt).getTime() > now.getTime() + FUTURE_TOLERANCE_MS) {
    throw fieldError({ paidAt: 'must not be in the future' });
  }
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      if (input.reference && (await repo.findByReference(trx, tenant, input.reference)))
        throw duplicateReference();

      const track = await tracksRepo.applyPayment(
        trx,
        tenant,
        input.trackId,
        input.amount,
        now.toISOString(),
      );
      if (!track) {
        const current = await getTrackRow(trx, tenant, input.trackId, 'trackId');
        if (current.status !== 'active') throw invalidState('track', current.status, 'record_payment');
        throw new AppError(
          'amount_exceeds_balance',
          `The payment of ${input.amount} is more than the plan's remaining balance of ${current.balance}.`,
          { balance: current.balance, amount: input.amount, currency: current.currency },
        );
      }

      const row: PaymentsTable = {
        id: newId('payment'),
        workspace_id: tenant.workspaceId,
        mode: tenant.mode,
        track_id: track.id,
        customer_id: track.customer_id,
        amount: input.amount,
        currency: track.currency,
        method: input.method ?? 'other',
        status: 'recorded',
        paid_at: paidAt,
        reference: input.reference ?? null,
        source: 'api',
        metadata: stringifyMetadata(input.metadata),
        created_at: now.toISOString(),
      };
      await repo.insert(trx, row);
      await appendEntry(trx, ctx.clock, tenant, {
        type: 'payment.recorded',
        trackId: track.id,
        customerId: track.customer_id,
        amount: -input.amount,
        balanceAfter: track.balance,
        currency: track.currency,
        occurredAt: paidAt,
        refs: { paymentId: row.id },
      });
      const payment = toApi(row);
      await recordEvent(trx, ctx.clock, tenant, 'payment.recorded', payment);
      if (track.status === 'completed') {
        await recordEvent(trx, ctx.clock, tenant, 'track.completed', trackToApi(track));
      }
      return payment;
    });
  } catch (error) {
    // Two requests with the same new reference at once: the unique index lets one through.
    if (isUniqueViolation(error)) throw duplicateReference();
    throw error;
  }
}

export async function getPayment(ctx: AppContext, tenant: Tenant, id: string): Promise<Payment> {
  const row = await repo.findById(ctx.db, tenant, id);
  if (!row) throw notFound('payment', id);
  return toApi(row);
}

export async function listPayments(
  ctx: AppContext,
  tenant: Tenant,
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
  tenant: Tenant,
  trackId: string,
  query: TrackPaymentListQuery,
): Promise<Page<Payment>> {
  await getTrackRow(ctx.db, tenant, trackId);
  return listPayments(ctx, tenant, { ...query, trackId });
}
