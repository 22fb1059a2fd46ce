import type { AppContext } from '../../context.js';
import type { DialectName } from '../../db/dialect.js';
import type { Trx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { notFound } from '../../lib/app-error.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import { type Destination, moneyOfNotification, receiveProviderMoney } from '../../money/index.js';
import { recordEvent } from '../../outbox/outbox.js';
import { ProviderCallError } from '../../ports/live-provider.js';
import type { ChargeResult } from '../../ports/payment-providers.js';
import type { InboundNotification } from '../../ports/provider-notifications.js';
import { holdOnObligation } from '../collections/holds.js';
import { appendEntry } from '../ledger/ledger.service.js';
import { findMandate, mandateForCollection } from '../mandates/mandates.service.js';
import type { Payment } from '../payments/payments.schemas.js';
import { liveProvider } from '../providers/adapters.service.js';
import { type CheckoutLink, checkoutLinkFor } from '../providers/checkout.service.js';
import { type Handled, handledOf, isApproved, providerDisplayName } from '../providers/providers.service.js';
import { remindToConfirmPayment } from '../reminders/reminders.service.js';
import { claimCollection, saveCheckout } from '../schedules/index.js';
import { findObligation } from '../schedules/obligations.service.js';
import { findScheduleRow, OPEN_OBLIGATION } from '../schedules/schedules.service.js';
import { findTrack } from '../tracks/tracks.service.js';
import { chargeLive } from './attempts.live-charges.js';
import { toApi } from './attempts.mapper.js';
import * as repo from './attempts.repository.js';
import type { Attempt, AttemptListQuery } from './attempts.schemas.js';
import type { AttemptStatus, AttemptsTable, BlockedReason } from './attempts.table.js';

const DAY_MS = 86_400_000;
/** Retries of a retryable failure, in days after the first failure: four tries in all. */
const RETRY_AFTER_DAYS = [1, 3, 7] as const;

export async function getAttempt(ctx: AppContext, tenant: TenantRef, id: string): Promise<Attempt> {
  const row = await repo.findById(ctx.db, tenant, id);
  if (!row) throw notFound('attempt', id);
  return toApi(row);
}

export function listAttempts(
  ctx: AppContext,
  tenant: TenantRef,
  query: AttemptListQuery,
): Promise<Page<Attempt>> {
  return paginate(
    query,
    'attempt',
    (limit, afterId) => repo.list(ctx.db, tenant, { ...query, limit }, afterId),
    toApi,
  );
}

/** A new attempt for an obligation, scheduled for `at`; false when that try already exists. */
async function schedule(
  trx: Trx,
  tenant: Tenant,
  base: { scheduleId: string; obligationId: string; amount: number; currency: string },
  tryNumber: number,
  at: string,
  firstFailedAt: string | null,
): Promise<boolean> {
  const created = tenant.clock.now();
  const row: AttemptsTable = {
    id: newId('attempt', created),
    workspace_id: tenant.workspaceId,
    mode: tenant.mode,
    schedule_id: base.scheduleId,
    obligation_id: base.obligationId,
    mandate_id: null,
    provider: null,
    amount: base.amount,
    currency: base.currency,
    status: 'scheduled',
    scheduled_for: at,
    attempted_at: null,
    attempt_number: tryNumber,
    first_failed_at: firstFailedAt,
    failure_code: null,
    failure_message: null,
    next_retry_at: null,
    no_retry_reason: null,
    blocked_reason: null,
    payment_id: null,
    provider_reference: null,
    provider_failure_code: null,
    reconcile_at: null,
    created_at: created.toISOString(),
    updated_at: created.toISOString(),
  };
  if (!(await repo.insert(trx, row))) return false;
  await recordEvent(trx, tenant, 'attempt.created', toApi(row));
  return true;
}

/**
 * An obligation whose time to collect has come: its first attempt, or for a gatewayA_checkout schedule its
 * checkout page (once: `collect_at` is cleared with it). The provider is asked for the page before the
 * transaction, with the obligation id as its reference, so no transaction waits on a provider.
 */
export async function createFirstAttempt(
  ctx: AppContext,
  tenant: Tenant,
  obligationId: string,
): Promise<boolean> {
  const due = await findObligation(ctx.db, tenant, obligationId);
  if (!due || due.collect_at === null) return false;
  const owner = await findScheduleRow(ctx.db, tenant, due.schedule_id);
  const byCheckout = owner?.collection_method === 'gatewayA_checkout';
  // A checkout pays a plan: a schedule without one is collected by automatic debit alone.
  let link: CheckoutLink | null = null;
  if (byCheckout && due.track_id !== null) {
    try {
      link = await checkoutLinkFor(ctx, tenant, due);
    } catch (error) {
      // The provider did not answer: the obligation stays due for collection, and the next sweep asks again.
      if (error instanceof ProviderCallError && error.retryable) return false;
      throw error;
    }
  }
  return inTransaction(ctx, tenant, async (trx) => {
    const claimed = await claimCollection(trx, obligationId);
    if (!claimed) return false;
    if (byCheckout) {
      if (link) await saveCheckout(trx, tenant, claimed.id, link);
      return true;
    }
    return schedule(
      trx,
      tenant,
      {
        scheduleId: claimed.schedule_id,
        obligationId: claimed.id,
        amount: claimed.amount - claimed.amount_paid,
        currency: claimed.currency,
      },
      1,
      tenant.clock.now().toISOString(),
      null,
    );
  });
}

type Decision =
  | { run: false; cancel: true }
  | { run: false; cancel: false; blocked: BlockedReason }
  /** The schedule is paused, or another sweep claimed the attempt: it stays as it is. */
  | { run: false; cancel: false; blocked: null }
  | { run: true; attempt: AttemptsTable };

/**
 * Whether an attempt may charge now: its obligation still owes and its schedule is active; the schedule has an
 * active mandate; in live mode its provider has approved the workspace (that cause comes first). A runnable
 * attempt is claimed (processing) in the same transaction, so two sweeps never charge it both.
 */
async function decide(trx: Trx, tenant: Tenant, attempt: AttemptsTable): Promise<Decision> {
  const obligation = await findObligation(trx, tenant, attempt.obligation_id);
  const owner = await findScheduleRow(trx, tenant, attempt.schedule_id);
  if (!obligation || !OPEN_OBLIGATION.includes(obligation.status) || owner?.status === 'cancelled') {
    return { run: false, cancel: true };
  }
  const mandate = await mandateForCollection(trx, tenant, attempt.schedule_id);
  if (tenant.mode === 'live' && mandate && !(await isApproved(trx, tenant, mandate.provider))) {
    return { run: false, cancel: false, blocked: 'provider_approval_required' };
  }
  if (mandate?.status !== 'active') return { run: false, cancel: false, blocked: 'no_active_mandate' };
  if (owner?.status !== 'active') return { run: false, cancel: false, blocked: null };
  const hold = await holdOnObligation(trx, tenant, obligation);
  if (hold) return { run: false, cancel: false, blocked: hold };
  const track = obligation.track_id ? await findTrack(trx, tenant, obligation.track_id) : undefined;
  const owed = obligation.amount - obligation.amount_paid;
  const amount = track ? Math.min(owed, track.balance) : owed;
  if (amount <= 0) return { run: false, cancel: true };
  const now = tenant.clock.now().toISOString();
  const claimed = await repo.updateIn(trx, attempt.id, ['scheduled', 'blocked'], {
    status: 'processing',
    attempted_at: now,
    mandate_id: mandate.id,
    provider: mandate.provider,
    amount,
    blocked_reason: null,
    updated_at: now,
  });
  // Not claimed: another sweep took it meanwhile; it is that one's to charge.
  return claimed ? { run: true, attempt: claimed } : { run: false, cancel: false, blocked: null };
}

/** The ledger entry of a collection's outcome: a marker beside the payment's own entry, moving no money. */
async function ledgerEntry(
  trx: Trx,
  tenant: Tenant,
  attempt: AttemptsTable,
  type: 'collection.succeeded' | 'collection.failed',
) {
  const obligation = await findObligation(trx, tenant, attempt.obligation_id);
  const track = obligation?.track_id ? await findTrack(trx, tenant, obligation.track_id) : undefined;
  const mandate = attempt.mandate_id ? await findMandate(trx, tenant, attempt.mandate_id) : undefined;
  await appendEntry(trx, tenant, {
    type,
    trackId: track?.id ?? null,
    customerId: track?.customer_id ?? mandate?.payer_id ?? null,
    amount: 0,
    balanceAfter: track?.balance ?? null,
    currency: attempt.currency,
    refs: {
      attemptId: attempt.id,
      obligationId: attempt.obligation_id,
      ...(attempt.payment_id ? { paymentId: attempt.payment_id } : {}),
    },
  });
}

/**
 * The payment of a successful charge, recorded as all money a provider reports is (`receiveProviderMoney`): for
 * the obligation it was collected for first, on its plan (or its schedule without one); what the plan cannot take
 * (paid off or archived since the charge began) is the customer's credit. Collected money is always on the books.
 */
async function collected(
  trx: Trx,
  tenant: Tenant,
  attempt: AttemptsTable,
  providerReference: string,
  now: string,
): Promise<Payment> {
  const obligation = await findObligation(trx, tenant, attempt.obligation_id);
  const mandate = attempt.mandate_id ? await findMandate(trx, tenant, attempt.mandate_id) : undefined;
  const destination: Destination = !obligation
    ? null
    : obligation.track_id
      ? { trackId: obligation.track_id, obligationId: obligation.id }
      : {
          scheduleId: obligation.schedule_id,
          obligationId: obligation.id,
          customerId: mandate?.payer_id ?? null,
        };
  const received = await receiveProviderMoney(
    trx,
    tenant,
    {
      amount: attempt.amount,
      currency: attempt.currency,
      method: 'direct_debit',
      paidAt: now,
      reference: null,
      metadata: { attemptId: attempt.id, providerReference },
      provider: attempt.provider,
      providerReference,
    },
    destination,
  );
  return received.payment;
}

/**
 * Records what the provider answered for an attempt, in the caller's transaction: the payment through the money
 * core, or the failure and its retry. `from` is the state the attempt must still be in: processing, as a rule; a
 * provider's late success may answer an attempt in any state but succeeded (it failed on a timeout, say): its
 * payment is recorded and the retries still pending for its obligation are cancelled, so it is not charged
 * again. Returns the attempt as recorded. Throws `AttemptAnswered` when it was no longer in `from` (its answer
 * was recorded meanwhile), so that the caller's transaction, payment included, rolls back.
 */
export async function recordOutcome(
  trx: Trx,
  tenant: Tenant,
  attempt: AttemptsTable,
  result: ChargeResult,
  from: readonly AttemptStatus[] = ['processing'],
): Promise<AttemptsTable> {
  {
    const now = tenant.clock.now().toISOString();
    if (result.status === 'succeeded') {
      const payment = await collected(trx, tenant, attempt, result.providerReference, now);
      const done = await repo.updateIn(trx, attempt.id, from, {
        status: 'succeeded',
        payment_id: payment.id,
        failure_message: null,
        provider_reference: result.providerReference,
        reconcile_at: null,
        updated_at: now,
      });
      if (!done) throw new AttemptAnswered();
      await repo.cancelPendingOfObligation(trx, done.obligation_id, now);
      await ledgerEntry(trx, tenant, done, 'collection.succeeded');
      await recordEvent(trx, tenant, 'attempt.succeeded', toApi(done), { status: attempt.status });
      return done;
    }
    const firstFailedAt = attempt.first_failed_at ?? now;
    const retryDays = RETRY_AFTER_DAYS[attempt.attempt_number - 1];
    const retryAt =
      result.retryable && retryDays !== undefined
        ? new Date(Date.parse(firstFailedAt) + retryDays * DAY_MS).toISOString()
        : null;
    const failed = await repo.updateIn(trx, attempt.id, from, {
      status: 'failed',
      first_failed_at: firstFailedAt,
      failure_code: result.code,
      failure_message: result.message,
      provider_failure_code: result.providerCode ?? null,
      reconcile_at: null,
      ...(result.providerReference ? { provider_reference: result.providerReference } : {}),
      next_retry_at: retryAt,
      no_retry_reason: retryAt ? null : result.retryable ? 'retries_exhausted' : 'not_retryable',
      updated_at: now,
    });
    if (!failed) throw new AttemptAnswered();
    await ledgerEntry(trx, tenant, failed, 'collection.failed');
    await recordEvent(trx, tenant, 'attempt.failed', toApi(failed));
    if (retryAt) {
      await schedule(
        trx,
        tenant,
        {
          scheduleId: failed.schedule_id,
          obligationId: failed.obligation_id,
          amount: failed.amount,
          currency: failed.currency,
        },
        failed.attempt_number + 1,
        retryAt,
        firstFailedAt,
      );
    }
    return failed;
  }
}

/** The attempt's answer was recorded meanwhile; what this transaction did must not stay. */
export class AttemptAnswered extends Error {}

/**
 * `charge.succeeded` and `charge.failed`: a charge's outcome as the provider notified it, in the caller's
 * transaction, for an attempt in any state: a success is recorded unless the attempt already succeeded (a late
 * success of an attempt that failed or timed out records the payment and cancels its pending retry); a failure
 * answers an attempt still processing. Money charged for an attempt this workspace does not know is recorded as
 * unapplied.
 */
export async function chargeAnswered(
  trx: Trx,
  dialect: DialectName,
  tenant: Tenant,
  provider: string,
  notification: InboundNotification,
): Promise<Handled> {
  const attempt = await repo.findByIdForUpdate(trx, dialect, tenant, notification.reference);
  const succeeded = notification.type === 'charge.succeeded';
  if (!attempt) {
    if (!succeeded) return { outcome: 'unmatched', paymentId: null, reason: null };
    const money = moneyOfNotification(provider, notification, 'direct_debit', {
      attemptId: notification.reference,
    });
    return handledOf(await receiveProviderMoney(trx, tenant, money, null));
  }
  if (attempt.status === 'succeeded' || (!succeeded && attempt.status !== 'processing')) {
    return { outcome: 'already_recorded', paymentId: attempt.payment_id, reason: null };
  }
  const recorded = await recordOutcome(
    trx,
    tenant,
    attempt,
    succeeded
      ? { status: 'succeeded', providerReference: notification.provider_reference ?? notification.id }
      : ((notification.failure && { status: 'failed', ...notification.failure }) ?? {
          status: 'failed',
          code: 'declined',
          message: `The provider reported the charge failed${notification.failure_code ? ` (${notification.failure_code})` : ''}.`,
          retryable: false,
        }),
    [attempt.status],
  );
  return { outcome: 'recorded', paymentId: recorded.payment_id, reason: null };
}

/**
 * Runs one attempt: decides (cancelled, blocked, or claimed), charges the provider outside any transaction with
 * the attempt's id as its idempotency key, and records the answer. An attempt left processing by a worker that
 * stopped is charged again under the same key, so the provider charges it once. Returns whether anything
 * changed (a blocked attempt still blocked for the same cause did not).
 */
export async function runAttempt(ctx: AppContext, tenant: Tenant, id: string): Promise<boolean> {
  const current = await repo.findById(ctx.db, tenant, id);
  if (!current) return false;
  let attempt = current;
  if (current.status !== 'processing') {
    const decision = await inTransaction(
      ctx,
      tenant,
      async (trx): Promise<{ decided: Decision; changed: boolean }> => {
        const decided = await decide(trx, tenant, current);
        if (decided.run) return { decided, changed: true };
        const now = tenant.clock.now().toISOString();
        if (decided.cancel) {
          const cancelled = await repo.updateIn(trx, id, ['scheduled', 'blocked'], {
            status: 'cancelled',
            blocked_reason: null,
            updated_at: now,
          });
          return { decided, changed: cancelled !== undefined };
        }
        if (
          decided.blocked === null ||
          (current.status === 'blocked' && current.blocked_reason === decided.blocked)
        ) {
          return { decided, changed: false };
        }
        const blocked = await repo.updateIn(trx, id, ['scheduled', 'blocked'], {
          status: 'blocked',
          blocked_reason: decided.blocked,
          updated_at: now,
        });
        if (blocked) await recordEvent(trx, tenant, 'attempt.blocked', toApi(blocked));
        return { decided, changed: blocked !== undefined };
      },
    );
    if (!decision.decided.run) return decision.changed;
    attempt = decision.decided.attempt;
  }
  const provider = ctx.ports.provider(tenant.mode, attempt.provider ?? '');
  const mandate = attempt.mandate_id ? await findMandate(ctx.db, tenant, attempt.mandate_id) : undefined;
  // Revoked or replaced since the attempt was claimed (or while a stopped worker held it): never charged on it.
  if (mandate?.status !== 'active') {
    return inTransaction(ctx, tenant, async (trx) => {
      const blocked = await repo.updateIn(trx, attempt.id, ['processing'], {
        status: 'blocked',
        blocked_reason: 'no_active_mandate',
        updated_at: tenant.clock.now().toISOString(),
      });
      if (blocked) await recordEvent(trx, tenant, 'attempt.blocked', toApi(blocked));
      return blocked !== undefined;
    });
  }
  const live = await liveProvider(ctx, tenant, attempt.provider ?? '');
  if (live) {
    const settle = async (charged: AttemptsTable, result: ChargeResult) => {
      try {
        await inTransaction(ctx, tenant, (trx) => recordOutcome(trx, tenant, charged, result));
      } catch (error) {
        if (!(error instanceof AttemptAnswered)) throw error;
        return;
      }
      if (result.status === 'failed' && result.code === 'authentication_required') {
        await askPayerToConfirm(ctx, tenant, charged, mandate.payer_id);
      }
    };
    return chargeLive(ctx, tenant, attempt, mandate, live, settle, current.status === 'processing');
  }
  const result = await provider.charge({
    reference: attempt.id,
    mandateId: mandate?.provider_mandate_id ?? attempt.mandate_id ?? '',
    amount: attempt.amount,
    currency: attempt.currency,
  });
  try {
    await inTransaction(ctx, tenant, (trx) => recordOutcome(trx, tenant, attempt, result));
  } catch (error) {
    if (!(error instanceof AttemptAnswered)) throw error;
  }
  return true;
}

/**
 * A charge whose outcome could not be recorded (the plan refused the money it brought: paid off meanwhile, say)
 * says so on the attempt, which stays processing; the worker tries to record it again.
 */
export async function noteTrouble(ctx: AppContext, id: string, now: string, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  await repo.updateIn(ctx.db, id, ['processing'], {
    failure_message: `The provider's answer could not be recorded yet: ${message}`.slice(0, 500),
    updated_at: now,
  });
}

/**
 * `charge.processing`: the provider took an asynchronous charge (a bank debit) and will say later how it went.
 * Keeps its reference on the attempt while it is processing. Returns whether an attempt was so.
 */
export async function chargeProcessing(
  trx: Trx,
  tenant: Tenant,
  attemptId: string | null,
  providerReference: string,
): Promise<boolean> {
  const attempt = attemptId ? await repo.findById(trx, tenant, attemptId) : undefined;
  if (!attempt) return false;
  const kept = await repo.updateIn(trx, attempt.id, ['processing'], {
    provider_reference: providerReference,
    updated_at: tenant.clock.now().toISOString(),
  });
  return kept !== undefined;
}

/**
 * A charge the provider would not make without the payer: no retry (the payer would not see it), but a reminder
 * now with a link to pay the obligation, from the provider serving the checkout rail (its checkout kept on the
 * obligation, so that the money paid there pays it).
 */
async function askPayerToConfirm(ctx: AppContext, tenant: Tenant, attempt: AttemptsTable, payerId: string) {
  const obligation = await findObligation(ctx.db, tenant, attempt.obligation_id);
  if (!obligation || !OPEN_OBLIGATION.includes(obligation.status)) return;
  let payLink = obligation.checkout_url;
  if (!payLink && obligation.track_id !== null) {
    const link = await checkoutLinkFor(ctx, tenant, obligation).catch((error: unknown) => {
      if (error instanceof ProviderCallError) return null;
      throw error;
    });
    if (link) {
      await inTransaction(ctx, tenant, (trx) => saveCheckout(trx, tenant, obligation.id, link));
      payLink = link.url;
    }
  }
  await remindToConfirmPayment(ctx, tenant, {
    customerId: payerId,
    trackId: obligation.track_id,
    obligationId: obligation.id,
    amount: obligation.amount - obligation.amount_paid,
    currency: obligation.currency,
    provider: providerDisplayName(attempt.provider ?? ''),
    payLink,
  });
}
