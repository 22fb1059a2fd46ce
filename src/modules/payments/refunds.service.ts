import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Trx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { AppError, fieldError, invalidState, notFound } from '../../lib/app-error.js';
import type { Tenant } from '../../lib/tenant.js';
import { reversePayment as reverse } from '../../money/index.js';
import { recordEvent } from '../../outbox/outbox.js';
import { ProviderCallError, type ProviderEvent, type RefundResult } from '../../ports/live-provider.js';
import { liveProvider } from '../providers/adapters.service.js';
import { toApi } from './payments.mapper.js';
import * as repo from './payments.repository.js';
import type { Payment } from './payments.schemas.js';
import type { PaymentsTable } from './payments.table.js';

/** A refund event for money paytrack has not recorded yet: not kept, so the provider delivers it again later. */
export class RefundNotReady extends Error {
  constructor(reference: string) {
    super(
      `No payment here has the provider reference '${reference}' yet; the refund event is not kept, so deliver it again once the payment is recorded.`,
    );
    this.name = 'RefundNotReady';
  }
}

type RefundEvent = Extract<ProviderEvent, { kind: 'refund.pending' | 'refund.succeeded' | 'refund.failed' }>;

const refundOf = (row: PaymentsTable) => ({ ...toApi(row), balanceAfter: null });

/**
 * Records what a provider said of a refund, in the caller's transaction: succeeded reverses the payment (its
 * amount goes back on the balance) unless it was reversed already; failed keeps it recorded and says why;
 * pending waits. Each change is conditional on where the refund stood.
 */
async function settleRefund(
  trx: Trx,
  tenant: Tenant,
  payment: PaymentsTable,
  result: RefundResult,
): Promise<{ row: PaymentsTable; changed: boolean }> {
  const reference = result.providerReference ?? payment.refund_provider_reference;
  if (result.status === 'succeeded') {
    const marked = await repo.setRefund(trx, tenant, payment.id, [null, 'pending', 'failed'], {
      refund_status: 'succeeded',
      refund_provider_reference: reference,
      refund_failure_reason: null,
    });
    if (!marked) return { row: payment, changed: false };
    await reverse(trx, tenant, payment.id, payment.reversal_reason ?? 'Refunded through the provider');
    const row = (await repo.findById(trx, tenant, payment.id)) as PaymentsTable;
    await recordEvent(trx, tenant, 'payment.refunded', refundOf(row));
    return { row, changed: true };
  }
  if (result.status === 'failed') {
    const row = await repo.setRefund(trx, tenant, payment.id, [null, 'pending'], {
      refund_status: 'failed',
      refund_provider_reference: reference,
      refund_failure_reason: (result.failureReason ?? 'The provider did not refund it.').slice(0, 500),
    });
    if (row) await recordEvent(trx, tenant, 'payment.refund_failed', refundOf(row));
    return { row: row ?? payment, changed: row !== undefined };
  }
  // A late word that a refund which has since failed was pending changes nothing; a new refund may follow one.
  if (
    payment.refund_status === 'failed' &&
    (reference === null || reference === payment.refund_provider_reference)
  ) {
    return { row: payment, changed: false };
  }
  const row = await repo.setRefund(trx, tenant, payment.id, [null, 'pending', 'failed'], {
    refund_status: 'pending',
    refund_provider_reference: reference,
    refund_failure_reason: null,
  });
  if (row && payment.refund_status !== 'pending')
    await recordEvent(trx, tenant, 'payment.refund_pending', refundOf(row));
  return { row: row ?? payment, changed: row !== undefined };
}

/**
 * `POST /payments/{id}/reverse` with `refund: true`: gives a provider's payment back through that provider. The
 * payment stays recorded with its refund pending (event payment.refund_pending) while the provider is asked,
 * outside any transaction; it is reversed only once the provider confirms (payment.refunded), at once or by
 * webhook. A refusal keeps it recorded and says why (payment.refund_failed). In test mode a provider without
 * a sandbox key refunds through the simulator, which confirms at once.
 */
export async function refundPayment(
  ctx: AppContext,
  tenant: Tenant,
  id: string,
  reason: string | null,
): Promise<Payment> {
  const payment = await repo.findById(ctx.db, tenant, id);
  if (!payment) throw notFound('payment', id);
  if (payment.source !== 'provider' || payment.provider === null) {
    throw fieldError({
      refund:
        'only a payment a provider collected (source provider) can be refunded through it; reverse it without refund to correct the books',
    });
  }
  if (payment.status !== 'recorded') throw invalidState('payment', payment.status, 'refund');
  if (payment.refund_status === 'pending' || payment.refund_status === 'succeeded') {
    throw new AppError('invalid_state', `A refund of this payment is already ${payment.refund_status}.`);
  }
  const live = await liveProvider(ctx, tenant, payment.provider);
  if (!live && tenant.mode === 'live') {
    throw fieldError({
      refund: `this server has no live adapter with a key for '${payment.provider}': refund it with the provider, then reverse it without refund`,
    });
  }
  if (live && payment.provider_reference === null) {
    throw fieldError({
      refund: "the provider's reference of this payment is not known, so it cannot be named in a refund",
    });
  }
  // No owner: the response an Idempotency-Key keeps is the settled refund's, kept by the last transaction.
  const pending = await inTransaction(ctx, null, async (trx) => {
    const row = await repo.setRefund(trx, tenant, id, [null, 'failed'], {
      refund_status: 'pending',
      refund_provider_reference: null,
      refund_failure_reason: null,
    });
    if (!row) return null;
    if (reason)
      await trx.updateTable('payments').set({ reversal_reason: reason }).where('id', '=', id).execute();
    await recordEvent(trx, tenant, 'payment.refund_pending', refundOf(row));
    return { ...row, reversal_reason: reason ?? row.reversal_reason };
  });
  if (!pending)
    throw new AppError('invalid_state', 'This payment changed meanwhile; fetch it and try again.');
  let result: RefundResult;
  if (!live) {
    result = {
      status: 'succeeded',
      providerReference: `sim_rfd_${randomBytes(8).toString('hex')}`,
      failureReason: null,
    };
  } else {
    try {
      result = await live.adapter.refund({
        paymentProviderReference: payment.provider_reference as string,
        amount: payment.amount,
        currency: payment.currency,
        // A new key for each request: a refused refund may be asked again.
        idempotencyKey: `${payment.id}-${tenant.clock.now().getTime()}`,
      });
    } catch (error) {
      if (!(error instanceof ProviderCallError)) throw error;
      result = { status: 'failed', providerReference: null, failureReason: error.message };
    }
  }
  return inTransaction(ctx, tenant, async (trx) =>
    toApi((await settleRefund(trx, tenant, pending, result)).row),
  );
}

/** A provider's refund event, in the caller's transaction: the payment it names, refunded, refused or waiting. */
export async function refundAnswered(
  trx: Trx,
  tenant: Tenant,
  provider: string,
  event: RefundEvent,
): Promise<{ outcome: string; detail: string | null }> {
  const payment = await repo.findByProviderReference(trx, tenant, provider, event.paymentProviderReference);
  if (!payment) throw new RefundNotReady(event.paymentProviderReference);
  const status = (
    { 'refund.pending': 'pending', 'refund.succeeded': 'succeeded', 'refund.failed': 'failed' } as const
  )[event.kind];
  const { changed } = await settleRefund(trx, tenant, payment, {
    status,
    providerReference: event.providerReference,
    failureReason: event.failureReason,
  });
  return {
    outcome: changed ? 'handled' : 'already_recorded',
    detail: `payment ${payment.id} refund ${status}`,
  };
}
