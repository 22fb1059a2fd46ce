import { loadTenant } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import type { Trx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { AppError, notFound } from '../../lib/app-error.js';
import type { Tenant } from '../../lib/tenant.js';
import type { PaymentProvider } from '../../ports/payment-providers.js';
import type { InboundNotification, RawNotification } from '../../ports/provider-notifications.js';
import { chargeAnswered } from '../attempts/attempts.service.js';
import { receiveTransfer } from '../payments/transfers.service.js';
import { checkoutCompleted } from './checkout.service.js';
import type { NotificationReceipt } from './notifications.schemas.js';
import { type Handled, handledOf } from './providers.service.js';
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

/** What a handler is given: the verified notification, its provider and tenant, in the router's transaction. */
export interface Routed {
  ctx: AppContext;
  trx: Trx;
  tenant: Tenant;
  provider: string;
  notification: InboundNotification;
}

export type NotificationHandler = (routed: Routed) => Promise<Handled>;

/** Each notification type, to the service of the module that owns what it reports. */
export const NOTIFICATION_HANDLERS: Record<InboundNotification['type'], NotificationHandler> = {
  'transfer.received': async ({ trx, tenant, provider, notification }) =>
    handledOf(await receiveTransfer(trx, tenant, provider, notification)),
  'checkout.completed': ({ trx, tenant, provider, notification }) =>
    checkoutCompleted(trx, tenant, provider, notification),
  'charge.succeeded': ({ ctx, trx, tenant, provider, notification }) =>
    chargeAnswered(trx, ctx.dialect, tenant, provider, notification),
  'charge.failed': ({ ctx, trx, tenant, provider, notification }) =>
    chargeAnswered(trx, ctx.dialect, tenant, provider, notification),
};

/** Ids are a prefix and base32 or base62 characters; anything else names no setting (and never reaches SQL). */
const SETTING_ID = /^[A-Za-z0-9_]{1,64}$/;

/** The setting a provider's callback URL names; not_found for an id of another form or of no setting. */
export async function settingOfUrl(ctx: AppContext, settingId: string): Promise<ProviderSettingsTable> {
  const setting = SETTING_ID.test(settingId)
    ? await ctx.db.selectFrom('provider_settings').selectAll().where('id', '=', settingId).executeTakeFirst()
    : undefined;
  if (!setting) throw notFound('provider setting', settingId.slice(0, 64));
  return setting;
}

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
  const setting = await settingOfUrl(ctx, settingId);
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
  return inTransaction(ctx, null, async (trx) => {
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
    const handled = await NOTIFICATION_HANDLERS[notification.type]({
      ctx,
      trx,
      tenant,
      provider: setting.provider,
      notification,
    });
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
