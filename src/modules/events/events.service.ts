import type { AppContext } from '../../context.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { fieldError, notFound } from '../../lib/app-error.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { instantRange } from '../../lib/instant.js';
import type { Tenant } from '../../lib/tenant.js';
import { eventToApi } from '../../outbox/outbox.js';
import { redeliverEvent } from '../webhooks/webhooks.service.js';
import * as repo from './events.repository.js';
import {
  EVENT_RETENTION_DAYS,
  type Event,
  type EventListQuery,
  type EventResend,
  type EventResent,
} from './events.schemas.js';

/** The oldest moment whose events are still kept, by the tenant's clock. */
function keptSince(tenant: Tenant): string {
  return new Date(tenant.clock.now().getTime() - EVENT_RETENTION_DAYS * 86_400_000).toISOString();
}

export async function listEvents(
  ctx: AppContext,
  tenant: Tenant,
  query: EventListQuery,
): Promise<Page<Event>> {
  if (query.type !== undefined && !ctx.registry.eventTypes.includes(query.type)) {
    throw fieldError({ type: `must be one of: ${ctx.registry.eventTypes.join(', ')}` });
  }
  const filter = {
    ...instantRange(query),
    ...(query.type ? { type: query.type } : {}),
    since: keptSince(tenant),
  };
  return paginate(
    query,
    'event',
    (limit, afterId) => repo.list(ctx.db, tenant, { ...filter, limit }, afterId),
    eventToApi,
  );
}

export async function getEvent(ctx: AppContext, tenant: Tenant, id: string): Promise<Event> {
  const row = await repo.findById(ctx.db, tenant, id, keptSince(tenant));
  if (!row) throw notFound('event', id);
  return eventToApi(row);
}

/**
 * Delivers an event again: to one enabled endpoint, or to every enabled endpoint subscribed to its type. Each
 * delivery is a new job with its own attempts.
 */
export async function resendEvent(
  ctx: AppContext,
  tenant: Tenant,
  id: string,
  input: EventResend,
): Promise<EventResent> {
  return inTransaction(ctx, tenant, async (trx) => {
    const event = await repo.findById(trx, tenant, id, keptSince(tenant));
    if (!event) throw notFound('event', id);
    const endpointIds = await redeliverEvent(trx, ctx.clock, tenant, event, input.endpointId);
    return { eventId: event.id, endpointIds };
  });
}
