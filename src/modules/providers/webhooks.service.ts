import type { FastifyBaseLogger } from 'fastify';
import { loadTenant } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import type { DbOrTrx, Trx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { AppError } from '../../lib/app-error.js';
import type { Tenant } from '../../lib/tenant.js';
import {
  type AuthorizationState,
  type LiveProviderAdapter,
  ProviderCallError,
  type ProviderEvent,
  type RawWebhook,
  WebhookSignatureError,
} from '../../ports/live-provider.js';
import type { InboundNotification } from '../../ports/provider-notifications.js';
import { chargeProcessing } from '../attempts/attempts.service.js';
import { authorizationAnswered, mandateOfAuthorization } from '../mandates/index.js';
import { RefundNotReady, refundAnswered } from '../payments/refunds.service.js';
import { adapterOfSetting } from './adapters.service.js';
import { NOTIFICATION_HANDLERS, settingOfUrl } from './notifications.service.js';
import type { ProviderSettingsTable, ProviderWebhookEventsTable } from './providers.table.js';

/** What became of one event of a provider's webhook. */
export interface WebhookEventReceipt {
  id: string;
  type: string;
  /** handled: acted on; ignored: an event paytrack does not use; unmatched: about nothing paytrack knows. */
  outcome: string;
  detail: string | null;
  replayed: boolean;
}

interface EventRouted {
  ctx: AppContext;
  trx: Trx;
  tenant: Tenant;
  provider: string;
  /** What the provider said of an authorization, asked before the transaction (`mandate.check`). */
  authorization: AuthorizationState | null;
}

type Outcome = { outcome: string; detail: string | null };

/** Money a provider's event reports, in the form the generic notifications have: one path records both. */
function moneyNotification(event: Extract<ProviderEvent, { kind: 'charge.succeeded' }>): InboundNotification {
  const type = {
    debit: 'charge.succeeded',
    checkout: 'checkout.completed',
    virtual_account: 'transfer.received',
  }[event.channel] as InboundNotification['type'];
  return {
    // The money's own reference keys the payment: events that report the same money (a checkout session
    // completed, its payment intent succeeded) record it once.
    id: event.providerReference,
    type,
    // No reference matches nothing: the money is recorded unapplied (`unknown_reference`), never dropped.
    reference: event.reference ?? '',
    amount: event.amount,
    currency: event.currency,
    occurred_at: event.occurredAt,
    provider_reference: event.providerReference,
  };
}

async function money(routed: EventRouted, notification: InboundNotification): Promise<Outcome> {
  const handled = await NOTIFICATION_HANDLERS[notification.type]({ ...routed, notification });
  const detail = [handled.paymentId && `payment ${handled.paymentId}`, handled.reason]
    .filter(Boolean)
    .join('; ');
  return {
    outcome: handled.outcome === 'already_recorded' ? 'already_recorded' : handled.outcome,
    detail: detail || null,
  };
}

async function mandateEvent(
  routed: EventRouted,
  reference: { mandateId: string | null; authorizationReference: string | null },
  state: AuthorizationState | null,
): Promise<Outcome> {
  const mandate = await mandateOfAuthorization(routed.trx, routed.tenant, reference);
  if (!mandate) return { outcome: 'unmatched', detail: 'no mandate has this authorization' };
  if (!state) return { outcome: 'handled', detail: `mandate ${mandate.id} ${mandate.status}` };
  const status = await authorizationAnswered(routed.trx, routed.ctx.dialect, routed.tenant, mandate, state);
  return { outcome: 'handled', detail: `mandate ${mandate.id} ${status}` };
}

/** Each kind of provider event, to the service of the module that owns what it reports. */
const EVENT_HANDLERS: {
  [K in ProviderEvent['kind']]: (
    routed: EventRouted,
    event: Extract<ProviderEvent, { kind: K }>,
  ) => Promise<Outcome>;
} = {
  'charge.succeeded': (routed, event) => money(routed, moneyNotification(event)),
  'charge.failed': (routed, event) =>
    money(routed, {
      id: event.eventId,
      type: 'charge.failed',
      reference: event.reference ?? '',
      amount: 0,
      currency: '',
      occurred_at: new Date(0).toISOString(),
      failure_code: event.providerCode,
      failure: {
        code: event.code,
        providerCode: event.providerCode,
        message: event.message,
        retryable: event.retryable,
      },
      ...(event.providerReference ? { provider_reference: event.providerReference } : {}),
    }),
  'charge.processing': async ({ trx, tenant }, event) => ({
    outcome: (await chargeProcessing(trx, tenant, event.reference, event.providerReference))
      ? 'handled'
      : 'unmatched',
    detail: null,
  }),
  'mandate.active': (routed, event) =>
    mandateEvent(routed, { mandateId: event.reference, authorizationReference: null }, event.authorization),
  'mandate.check': (routed, event) =>
    mandateEvent(
      routed,
      { mandateId: event.reference, authorizationReference: event.providerReference },
      routed.authorization,
    ),
  'mandate.failed': (routed, event) =>
    mandateEvent(
      routed,
      { mandateId: event.reference, authorizationReference: null },
      {
        status: 'failed',
        reason: event.reason,
      },
    ),
  'refund.pending': (routed, event) => refundAnswered(routed.trx, routed.tenant, routed.provider, event),
  'refund.succeeded': (routed, event) => refundAnswered(routed.trx, routed.tenant, routed.provider, event),
  'refund.failed': (routed, event) => refundAnswered(routed.trx, routed.tenant, routed.provider, event),
  ignored: async () => ({ outcome: 'ignored', detail: null }),
};

function route(routed: EventRouted, event: ProviderEvent): Promise<Outcome> {
  const handler = EVENT_HANDLERS[event.kind] as (
    routed: EventRouted,
    event: ProviderEvent,
  ) => Promise<Outcome>;
  return handler(routed, event);
}

/** A provider's webhook at `POST /api/v1/provider-webhooks/{settingId}`: the setting, and its adapter. */
async function settingOf(
  ctx: AppContext,
  settingId: string,
): Promise<{ setting: ProviderSettingsTable; adapter: LiveProviderAdapter }> {
  const setting = await settingOfUrl(ctx, settingId);
  const adapter = adapterOfSetting(ctx, setting);
  if (!adapter) {
    throw new AppError(
      'not_found',
      `Provider setting '${setting.id}' has no key of a provider with its own webhooks (paytrack provider set --secret-key-file); its provider sends to /api/v1/provider-notifications/${setting.id}.`,
    );
  }
  return { setting, adapter };
}

/** Checks the webhook's signature with the provider's own scheme: a bad one is 401 and nothing is read. */
export async function verifyWebhook(ctx: AppContext, settingId: string, raw: RawWebhook) {
  const { setting, adapter } = await settingOf(ctx, settingId);
  try {
    // Signature freshness is a matter of the wire's time, not of any test clock.
    return { setting, adapter, events: adapter.parseWebhook(raw, new Date()) };
  } catch (error) {
    if (error instanceof WebhookSignatureError) throw new AppError('unauthorized', error.message);
    throw error;
  }
}

/**
 * A verified webhook's events, each acted on once by the provider's event id (a redelivery answers as the first
 * did), each in its own transaction with the row that keeps it. What an event needs from the provider (where an
 * authorization stands) is asked before that transaction.
 */
export async function receiveWebhook(
  ctx: AppContext,
  verified: Awaited<ReturnType<typeof verifyWebhook>>,
  log: FastifyBaseLogger,
): Promise<{ events: WebhookEventReceipt[] }> {
  const { setting, adapter, events } = verified;
  const tenant = await loadTenant(ctx.db, ctx.clock, {
    workspaceId: setting.workspace_id,
    mode: setting.mode,
  });
  const receipts: WebhookEventReceipt[] = [];
  for (const event of events) {
    // Paystack's refund events carry no id of their own: two refunds' events may share the id derived for them.
    // Their handling is conditional on where the refund stands, so they are acted on however often they come.
    const replayable = !event.kind.startsWith('refund.');
    const seen = await findEvent(ctx.db, setting.id, event.eventId);
    if (seen && replayable) {
      receipts.push({
        id: seen.event_id,
        type: seen.type,
        outcome: seen.outcome,
        detail: seen.detail,
        replayed: true,
      });
      continue;
    }
    let authorization: AuthorizationState | null = null;
    if (event.kind === 'mandate.check') {
      try {
        authorization = await adapter.checkAuthorization(event.providerReference);
      } catch (error) {
        if (!(error instanceof ProviderCallError)) throw error;
        throw new AppError(
          'service_unavailable',
          `The provider did not answer about the authorization: ${error.message}`,
        );
      }
    }
    try {
      receipts.push(
        await inTransaction(ctx, null, async (trx) => {
          const row: ProviderWebhookEventsTable = {
            setting_id: setting.id,
            event_id: event.eventId,
            type: event.providerType,
            outcome: 'received',
            detail: null,
            received_at: tenant.clock.now().toISOString(),
          };
          const inserted = await trx
            .insertInto('provider_webhook_events')
            .values(row)
            .onConflict((oc) => oc.columns(['setting_id', 'event_id']).doNothing())
            .executeTakeFirst();
          const fresh = Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
          if (!fresh && replayable) {
            const first = await findEvent(trx, setting.id, event.eventId);
            return {
              id: event.eventId,
              type: event.providerType,
              outcome: first?.outcome ?? 'received',
              detail: first?.detail ?? null,
              replayed: true,
            };
          }
          const { outcome, detail } = await route(
            { ctx, trx, tenant, provider: setting.provider, authorization },
            event,
          );
          await trx
            .updateTable('provider_webhook_events')
            .set({ outcome, detail })
            .where('setting_id', '=', setting.id)
            .where('event_id', '=', event.eventId)
            .execute();
          if (outcome === 'ignored')
            log.info({ providerEvent: event.providerType, settingId: setting.id }, 'provider event not used');
          return {
            id: event.eventId,
            type: event.providerType,
            outcome,
            detail,
            replayed: !fresh && outcome === 'already_recorded',
          };
        }),
      );
    } catch (error) {
      // Nothing of this event was kept: the provider delivers it again, by when what it is about may exist.
      if (error instanceof RefundNotReady) throw new AppError('service_unavailable', error.message);
      throw error;
    }
  }
  return { events: receipts };
}

function findEvent(db: DbOrTrx, settingId: string, eventId: string) {
  return db
    .selectFrom('provider_webhook_events')
    .selectAll()
    .where('setting_id', '=', settingId)
    .where('event_id', '=', eventId)
    .executeTakeFirst();
}
