import { loadTenant } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import { forUpdate } from '../../db/dialect.js';
import type { Trx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { AppError, notFound } from '../../lib/app-error.js';
import { toInstant } from '../../lib/instant.js';
import type { Tenant } from '../../lib/tenant.js';
import type { PaymentProvider } from '../../ports/payment-providers.js';
import type { InboundNotification, RawNotification } from '../../ports/provider-notifications.js';
import { recordOutcome } from '../attempts/attempts.service.js';
import * as mandates from '../mandates/mandates.repository.js';
import { type Destination, type ProviderMoney, receiveProviderMoney } from '../payments/payments.receive.js';
import { RAIL_PROVIDER } from '../schedules/schedules.table.js';
import { checkoutPaid, type Handled, handledOf } from './checkout.service.js';
import type { NotificationReceipt } from './notifications.schemas.js';
import type { ProviderNotificationsTable, ProviderSettingsTable } from './providers.table.js';

function receipt(row: ProviderNotificationsTable, replayed: boolean): NotificationReceipt {
  return {
    id: row.notification_id,
    type: row.type,
    outcome: row.outcome,
    payment_id: row.payment_id,
    reason: row.reason,
    replayed,
  };
}

/** The money a notification reports, keyed by its id (the provider's), so that it is recorded once. */
function moneyOf(
  provider: string,
  notification: InboundNotification,
  method: ProviderMoney['method'],
  metadata: Record<string, string>,
): ProviderMoney {
  return {
    amount: notification.amount,
    currency: notification.currency,
    method,
    paidAt: toInstant(notification.occurred_at, 'occurred_at'),
    reference: `${provider}:${notification.id}`,
    metadata: { notificationId: notification.id, ...metadata },
  };
}

/** Where a transfer to a virtual account goes: the plan of the schedule that has it, or that schedule. */
async function transferDestination(
  trx: Trx,
  tenant: Tenant,
  provider: string,
  accountNumber: string,
): Promise<Destination> {
  const schedule = await trx
    .selectFrom('schedules')
    .selectAll()
    .where(inTenant(tenant))
    .where('virtual_account_number', '=', accountNumber)
    .executeTakeFirst();
  if (!schedule || RAIL_PROVIDER[schedule.collection_method] !== provider) return null;
  if (schedule.track_id) return { trackId: schedule.track_id };
  const mandate = await mandates.forCollection(trx, tenant, schedule.id);
  return { scheduleId: schedule.id, customerId: mandate?.payer_id ?? null };
}

/** A transfer to a schedule's virtual account: recorded as all money a provider reports is. */
async function transferReceived(
  trx: Trx,
  tenant: Tenant,
  provider: string,
  notification: InboundNotification,
): Promise<Handled> {
  const received = await receiveProviderMoney(
    trx,
    tenant,
    moneyOf(provider, notification, 'virtual_account', { virtualAccount: notification.reference }),
    await transferDestination(trx, tenant, provider, notification.reference),
  );
  return handledOf(received);
}

/**
 * A charge's outcome, for an attempt in any state: a success is recorded unless the attempt already succeeded
 * (a late success of an attempt that failed or timed out records the payment and cancels its pending retry); a
 * failure answers an attempt still processing. Money charged for an attempt this workspace does not know is
 * recorded as unapplied.
 */
async function chargeAnswered(
  ctx: AppContext,
  trx: Trx,
  tenant: Tenant,
  provider: string,
  notification: InboundNotification,
): Promise<Handled> {
  const attempt = await forUpdate(
    ctx.dialect,
    trx.selectFrom('attempts').selectAll().where('id', '=', notification.reference).where(inTenant(tenant)),
  ).executeTakeFirst();
  const succeeded = notification.type === 'charge.succeeded';
  if (!attempt) {
    if (!succeeded) return { outcome: 'unmatched', paymentId: null, reason: null };
    const money = moneyOf(provider, notification, 'direct_debit', { attemptId: notification.reference });
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
      ? { status: 'succeeded', providerReference: notification.id }
      : {
          status: 'failed',
          code: 'declined',
          message: `The provider reported the charge failed${notification.failure_code ? ` (${notification.failure_code})` : ''}.`,
          retryable: false,
        },
    [attempt.status],
  );
  return { outcome: 'recorded', paymentId: recorded.payment_id, reason: null };
}

/** Ids are a prefix and base32 or base62 characters; anything else names no setting (and never reaches SQL). */
const SETTING_ID = /^[A-Za-z0-9_]{1,64}$/;

export interface VerifiedNotification {
  setting: ProviderSettingsTable;
  notification: InboundNotification;
}

/**
 * A provider's notification at the URL `paytrack provider set` printed, read by the provider's adapter: its
 * signature is checked before anything about its body is (a bad one is 401 and tells nothing of the form).
 */
export async function verifyNotification(
  ctx: AppContext,
  settingId: string,
  rawBody: string,
  headers: RawNotification['headers'],
): Promise<VerifiedNotification> {
  const setting = SETTING_ID.test(settingId)
    ? await ctx.db.selectFrom('provider_settings').selectAll().where('id', '=', settingId).executeTakeFirst()
    : undefined;
  if (!setting) throw notFound('provider setting', settingId.slice(0, 64));
  let parsed: ReturnType<PaymentProvider['parseNotification']>;
  try {
    parsed = ctx.ports
      .provider(setting.mode, setting.provider)
      .parseNotification({ rawBody, headers, secret: setting.notification_secret });
  } catch (error) {
    // Adapters read the body only once its signature is good.
    if (error instanceof SyntaxError) throw new AppError('invalid_json', 'The body is not valid JSON.');
    throw error;
  }
  if (!parsed.ok) throw new AppError('unauthorized', parsed.reason);
  return { setting, notification: parsed.notification };
}

/**
 * A verified notification, acted on once: a notification id received before answers as the first delivery did.
 * Money it reports is always recorded (`receiveProviderMoney`): on its plan where it can be, else as an
 * unapplied payment; only a failure for an unknown attempt is kept as unmatched, so the provider stops sending.
 */
export async function receiveNotification(
  ctx: AppContext,
  { setting, notification }: VerifiedNotification,
): Promise<NotificationReceipt> {
  const tenant = await loadTenant(ctx.db, ctx.clock, {
    workspaceId: setting.workspace_id,
    mode: setting.mode,
  });
  return inTransaction(ctx, async (trx) => {
    const now = tenant.clock.now().toISOString();
    const row: ProviderNotificationsTable = {
      setting_id: setting.id,
      notification_id: notification.id,
      type: notification.type,
      reference: notification.reference,
      outcome: 'unmatched',
      payment_id: null,
      reason: null,
      received_at: now,
    };
    const inserted = await trx
      .insertInto('provider_notifications')
      .values(row)
      .onConflict((oc) => oc.columns(['setting_id', 'notification_id']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
      const first = await trx
        .selectFrom('provider_notifications')
        .selectAll()
        .where('setting_id', '=', setting.id)
        .where('notification_id', '=', notification.id)
        .executeTakeFirstOrThrow();
      return receipt(first, true);
    }
    let handled: Handled;
    if (notification.type === 'transfer.received') {
      handled = await transferReceived(trx, tenant, setting.provider, notification);
    } else if (notification.type === 'checkout.completed') {
      handled = await checkoutPaid(trx, tenant, notification.reference, {
        provider: setting.provider,
        amount: notification.amount,
        currency: notification.currency,
        paidAt: toInstant(notification.occurred_at, 'occurred_at'),
        reference: `${setting.provider}:${notification.id}`,
      });
    } else {
      handled = await chargeAnswered(ctx, trx, tenant, setting.provider, notification);
    }
    const { outcome, paymentId: payment_id, reason } = handled;
    if (outcome !== 'unmatched') {
      await trx
        .updateTable('provider_notifications')
        .set({ outcome, payment_id, reason })
        .where('setting_id', '=', setting.id)
        .where('notification_id', '=', notification.id)
        .execute();
    }
    return receipt({ ...row, outcome, payment_id, reason }, false);
  });
}
