import type { AppContext } from '../../context.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { enqueue, enqueueMany } from '../../jobs/queue.js';
import { fieldError, invalidState, notFound } from '../../lib/app-error.js';
import type { Clock } from '../../lib/clock.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import { eventToApi, recordEvent } from '../../outbox/outbox.js';
import { subscriptionLimitReached, subscriptionPlanById } from '../workspaces/subscription-plans.js';
import { lockWorkspace } from '../workspaces/workspaces.service.js';
import { generateSecret } from './signing.js';
import { deliverWebhookJob } from './webhooks.job.js';
import * as repo from './webhooks.repository.js';
import type {
  Event,
  WebhookDelivery,
  WebhookDeliveryListQuery,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointListQuery,
  WebhookEndpointUpdate,
  WebhookEndpointWithSecret,
} from './webhooks.schemas.js';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from './webhooks.table.js';

const ALL_TYPES = '*';

export function parseEventTypes(stored: string): string[] {
  const value: unknown = JSON.parse(stored);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function toApi(row: WebhookEndpointsTable): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: parseEventTypes(row.event_types),
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    disabledAt: row.disabled_at,
  };
}

export function deliveryToApi(row: WebhookDeliveriesTable): WebhookDelivery {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    attemptNumber: row.attempt_number,
    status: row.status,
    responseStatus: row.response_status,
    error: row.error,
    durationMs: row.duration_ms,
    attemptedAt: row.attempted_at,
    nextAttemptAt: row.next_attempt_at,
  };
}

/** Whether an endpoint subscribed to `eventTypes` receives an event of `type`. */
export function subscribes(eventTypes: readonly string[], type: string): boolean {
  return eventTypes.includes(ALL_TYPES) || eventTypes.includes(type);
}

/** Known types only, without repeats; `*` anywhere means all. */
function normaliseEventTypes(known: readonly string[], input: readonly string[] | undefined): string {
  const types = [...new Set(input ?? [ALL_TYPES])];
  const unknown = types.filter((t) => t !== ALL_TYPES && !known.includes(t));
  if (unknown.length > 0) {
    throw fieldError({
      eventTypes: `unknown event type${unknown.length > 1 ? 's' : ''} ${unknown.map((t) => `'${t}'`).join(', ')}; use "*" or any of: ${known.join(', ')}`,
    });
  }
  return JSON.stringify(types.includes(ALL_TYPES) ? [ALL_TYPES] : types);
}

/** The plan's limit of enabled endpoints, per workspace and mode, checked under the workspace lock. */
async function assertRoomForEndpoint(trx: DbOrTrx, ctx: AppContext, tenant: TenantRef, action: string) {
  const workspace = await lockWorkspace(trx, ctx.dialect, tenant.workspaceId);
  const limit = subscriptionPlanById(workspace?.subscription_plan ?? '').limits.webhookEndpoints;
  if ((await repo.countEnabledEndpoints(trx, tenant)) >= limit) {
    throw subscriptionLimitReached(action, limit, 'enabled webhook endpoints in each mode');
  }
}

async function assertUrlAllowed(ctx: AppContext, url: string): Promise<void> {
  const check = await ctx.ports.http.checkUrl(url);
  if (!check.ok) throw fieldError({ url: check.message });
}

export async function createEndpoint(
  ctx: AppContext,
  tenant: Tenant,
  input: WebhookEndpointCreate,
): Promise<WebhookEndpointWithSecret> {
  const eventTypes = normaliseEventTypes(ctx.registry.eventTypes, input.eventTypes);
  await assertUrlAllowed(ctx, input.url);
  return inTransaction(ctx, tenant, async (trx) => {
    await assertRoomForEndpoint(trx, ctx, tenant, 'create_webhook_endpoint');
    const at = tenant.clock.now();
    const now = at.toISOString();
    const row: WebhookEndpointsTable = {
      id: newId('webhookEndpoint', at),
      workspace_id: tenant.workspaceId,
      mode: tenant.mode,
      url: input.url,
      description: input.description ?? null,
      event_types: eventTypes,
      secret: generateSecret(),
      status: 'enabled',
      created_at: now,
      updated_at: now,
      disabled_at: null,
      enabled_at: now,
    };
    await repo.insertEndpoint(trx, row);
    return { ...toApi(row), secret: row.secret };
  });
}

async function getEndpointRow(db: DbOrTrx, tenant: TenantRef, id: string) {
  const row = await repo.findEndpoint(db, tenant, id);
  if (!row) throw notFound('webhook endpoint', id);
  return row;
}

export async function getEndpoint(ctx: AppContext, tenant: TenantRef, id: string): Promise<WebhookEndpoint> {
  return toApi(await getEndpointRow(ctx.db, tenant, id));
}

export async function listEndpoints(
  ctx: AppContext,
  tenant: TenantRef,
  query: WebhookEndpointListQuery,
): Promise<Page<WebhookEndpoint>> {
  return paginate(
    query,
    'webhookEndpoint',
    (limit, afterId) => repo.listEndpoints(ctx.db, tenant, { ...query, limit }, afterId),
    toApi,
  );
}

export async function updateEndpoint(
  ctx: AppContext,
  tenant: Tenant,
  id: string,
  input: WebhookEndpointUpdate,
): Promise<WebhookEndpoint> {
  const eventTypes =
    input.eventTypes !== undefined
      ? normaliseEventTypes(ctx.registry.eventTypes, input.eventTypes)
      : undefined;
  const current = await getEndpointRow(ctx.db, tenant, id);
  // A re-enabled endpoint is checked again: its host may resolve somewhere else by now.
  if (input.url !== undefined || (input.status === 'enabled' && current.status === 'disabled')) {
    await assertUrlAllowed(ctx, input.url ?? current.url);
  }
  return inTransaction(ctx, tenant, async (trx) => {
    const latest = await repo.findEndpointForUpdate(trx, ctx.dialect, tenant, id);
    if (!latest) throw notFound('webhook endpoint', id);
    const enabling = input.status === 'enabled' && latest.status === 'disabled';
    if (enabling) await assertRoomForEndpoint(trx, ctx, tenant, 'enable_webhook_endpoint');
    const now = tenant.clock.now().toISOString();
    const statusChange =
      input.status === undefined || input.status === latest.status
        ? {}
        : enabling
          ? { status: 'enabled' as const, disabled_at: null, enabled_at: now }
          : { status: 'disabled' as const, disabled_at: now, enabled_at: null };
    const row = await repo.updateEndpoint(
      trx,
      tenant,
      id,
      {
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(eventTypes !== undefined ? { event_types: eventTypes } : {}),
        ...statusChange,
        updated_at: now,
      },
      latest.status,
    );
    if (!row) throw notFound('webhook endpoint', id);
    return toApi(row);
  });
}

export async function disableEndpoint(ctx: AppContext, tenant: Tenant, id: string): Promise<WebhookEndpoint> {
  return inTransaction(ctx, tenant, async (trx) => {
    const now = tenant.clock.now().toISOString();
    const row = await repo.updateEndpoint(
      trx,
      tenant,
      id,
      { status: 'disabled', disabled_at: now, enabled_at: null, updated_at: now },
      'enabled',
    );
    if (!row) {
      const current = await getEndpointRow(trx, tenant, id);
      throw invalidState('webhook endpoint', current.status, 'disable');
    }
    return toApi(row);
  });
}

/** Queues a `webhook.test` event for this endpoint alone: its delivery job is added here, not by the relay. */
export async function sendTestEvent(ctx: AppContext, tenant: Tenant, id: string): Promise<Event> {
  return inTransaction(ctx, tenant, async (trx) => {
    const current = await repo.findEndpointForUpdate(trx, ctx.dialect, tenant, id);
    if (!current) throw notFound('webhook endpoint', id);
    if (current.status === 'disabled') throw invalidState('webhook endpoint', current.status, 'send_test');
    const event = await recordEvent(trx, tenant, 'webhook.test', toApi(current));
    await enqueue(trx, ctx.clock, deliverWebhookJob, { eventId: event.id, endpointId: current.id });
    return eventToApi(event);
  });
}

/**
 * Delivers an event again: to one enabled endpoint of the tenant, or to every enabled endpoint of its mode
 * subscribed to the event's type. Each delivery is a new job with its own attempts. Returns the endpoints.
 */
export async function redeliverEvent(
  trx: DbOrTrx,
  clock: Clock,
  tenant: TenantRef,
  event: { id: string; type: string },
  endpointId: string | undefined,
): Promise<string[]> {
  let endpointIds: string[];
  if (endpointId !== undefined) {
    const endpoint = await repo.findEndpoint(trx, tenant, endpointId);
    if (!endpoint) throw notFound('webhook endpoint', endpointId, 'endpointId');
    if (endpoint.status !== 'enabled') throw invalidState('webhook endpoint', endpoint.status, 'resend');
    endpointIds = [endpoint.id];
  } else {
    const enabled = await repo.enabledEndpointsOf(trx, [tenant.workspaceId]);
    endpointIds = enabled
      .filter((endpoint) => endpoint.mode === tenant.mode)
      .filter((endpoint) => subscribes(parseEventTypes(endpoint.event_types), event.type))
      .map((endpoint) => endpoint.id);
  }
  await enqueueMany(
    trx,
    clock,
    deliverWebhookJob,
    endpointIds.map((id) => ({ eventId: event.id, endpointId: id })),
  );
  return endpointIds;
}

export async function listDeliveries(
  ctx: AppContext,
  tenant: TenantRef,
  endpointId: string,
  query: WebhookDeliveryListQuery,
): Promise<Page<WebhookDelivery>> {
  await getEndpointRow(ctx.db, tenant, endpointId);
  return paginate(
    query,
    'webhookDelivery',
    (limit, afterId) => repo.listDeliveries(ctx.db, tenant, endpointId, { ...query, limit }, afterId),
    deliveryToApi,
  );
}
