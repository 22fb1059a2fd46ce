import { loadTenant } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import { forUpdate } from '../../db/dialect.js';
import type { Trx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { AppError, notFound } from '../../lib/app-error.js';
import { toInstant } from '../../lib/instant.js';
import type { Tenant } from '../../lib/tenant.js';
import type { InboundNotification, RawNotification } from '../../ports/provider-notifications.js';
import { recordOutcome } from '../attempts/attempts.service.js';
import { applyPayment } from '../payments/payments.service.js';
import { RAIL_PROVIDER } from '../schedules/schedules.table.js';
import { completeCheckout, type Handled } from './checkout.service.js';
import type { NotificationReceipt } from './notifications.schemas.js';
import type { NotificationOutcome, ProviderNotificationsTable } from './providers.table.js';

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

/** A transfer to a schedule's virtual account: a payment on its plan, through the money core. */
async function transferReceived(
  trx: Trx,
  tenant: Tenant,
  provider: string,
  notification: InboundNotification,
): Promise<Handled> {
  const schedule = await trx
    .selectFrom('schedules')
    .selectAll()
    .where(inTenant(tenant))
    .where('virtual_account_number', '=', notification.reference)
    .executeTakeFirst();
  if (!schedule?.track_id || RAIL_PROVIDER[schedule.collection_method] !== provider) {
    return { outcome: 'unmatched', paymentId: null, reason: null };
  }
  if (notification.currency !== schedule.currency) {
    return { outcome: 'refused', paymentId: null, reason: `the plan is in ${schedule.currency}` };
  }
  const paid = await applyPayment(trx, tenant, {
    trackId: schedule.track_id,
    amount: notification.amount,
    method: 'virtual_account',
    paidAt: toInstant(notification.occurred_at, 'occurred_at'),
    reference: `${provider}:${notification.id}`,
    source: 'provider',
    metadata: { notificationId: notification.id, virtualAccount: notification.reference },
  });
  if (!paid.ok) return { outcome: 'refused', paymentId: null, reason: paid.refusal.message };
  return { outcome: 'recorded', paymentId: paid.payment.id, reason: null };
}

/**
 * A provider's signed notification, at the URL `paytrack provider set` printed, read by the provider's adapter.
 * A bad signature is refused (401) and changes nothing; a notification id received before answers as the first delivery did. A charge's
 * outcome answers its processing attempt (the payment goes through the money core, as when the charge
 * answers at once); references this server does not know are kept as unmatched, so the provider stops sending.
 */
export async function receiveNotification(
  ctx: AppContext,
  settingId: string,
  rawBody: string,
  headers: RawNotification['headers'],
): Promise<NotificationReceipt> {
  const setting = await ctx.db
    .selectFrom('provider_settings')
    .selectAll()
    .where('id', '=', settingId)
    .executeTakeFirst();
  if (!setting) throw notFound('provider setting', settingId);
  const parsed = ctx.ports
    .provider(setting.mode, setting.provider)
    .parseNotification({ rawBody, headers, secret: setting.notification_secret });
  if (!parsed.ok) throw new AppError('unauthorized', parsed.reason);
  const { notification } = parsed;
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
    let outcome: NotificationOutcome = 'unmatched';
    let paymentId: string | null = null;
    let reason: string | null = null;
    if (notification.type === 'transfer.received') {
      ({ outcome, paymentId, reason } = await transferReceived(trx, tenant, setting.provider, notification));
    } else if (notification.type === 'checkout.completed') {
      ({ outcome, paymentId, reason } = await completeCheckout(trx, tenant, notification.reference, {
        provider: setting.provider,
        amount: notification.amount,
        paidAt: toInstant(notification.occurred_at, 'occurred_at'),
        reference: `${setting.provider}:${notification.id}`,
      }));
    } else if (notification.type === 'charge.succeeded' || notification.type === 'charge.failed') {
      const attempt = await forUpdate(
        ctx.dialect,
        trx
          .selectFrom('attempts')
          .selectAll()
          .where('id', '=', notification.reference)
          .where(inTenant(tenant)),
      ).executeTakeFirst();
      if (attempt && attempt.status !== 'processing') {
        outcome = 'already_recorded';
        paymentId = attempt.payment_id;
      } else if (attempt) {
        const recorded = await recordOutcome(
          trx,
          tenant,
          attempt,
          notification.type === 'charge.succeeded'
            ? { status: 'succeeded', providerReference: notification.id }
            : {
                status: 'failed',
                code: 'declined',
                message: `The provider reported the charge failed${notification.failure_code ? ` (${notification.failure_code})` : ''}.`,
                retryable: false,
              },
        );
        outcome = 'recorded';
        paymentId = recorded.payment_id;
      }
    }
    if (outcome !== 'unmatched') {
      await trx
        .updateTable('provider_notifications')
        .set({ outcome, payment_id: paymentId, reason })
        .where('setting_id', '=', setting.id)
        .where('notification_id', '=', notification.id)
        .execute();
    }
    return receipt({ ...row, outcome, payment_id: paymentId, reason }, false);
  });
}
