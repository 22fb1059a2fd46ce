import { enqueueMany } from '../../jobs/queue.js';
import type { EventSubscriber } from '../../outbox/relay.js';
import { deliverWebhookJob } from './webhooks.job.js';
import * as repo from './webhooks.repository.js';
import { parseEventTypes, subscribes } from './webhooks.service.js';

/** Test events are delivered to their one endpoint by the request that makes them, never fanned out. */
const TARGETED_TYPES: ReadonlySet<string> = new Set(['webhook.test']);

/**
 * Fans new events out to one delivery job per subscribed endpoint of the event's workspace and mode: an
 * endpoint receives the events created while it is enabled.
 */
export const webhookFanOut: EventSubscriber = {
  name: 'webhooks',
  async handle(trx, ctx, events) {
    const fanned = events.filter((event) => !TARGETED_TYPES.has(event.type));
    const workspaceIds = [...new Set(fanned.map((event) => event.workspace_id))];
    if (workspaceIds.length === 0) return;
    const endpoints = (await repo.enabledEndpointsOf(trx, workspaceIds)).map((endpoint) => ({
      endpoint,
      types: parseEventTypes(endpoint.event_types),
    }));
    const deliveries = fanned.flatMap((event) =>
      endpoints
        .filter(
          ({ endpoint, types }) =>
            endpoint.workspace_id === event.workspace_id &&
            endpoint.mode === event.mode &&
            endpoint.enabled_at !== null &&
            endpoint.enabled_at <= event.created_at &&
            subscribes(types, event.type),
        )
        .map(({ endpoint }) => ({ eventId: event.id, endpointId: endpoint.id })),
    );
    await enqueueMany(trx, ctx.clock, deliverWebhookJob, deliveries);
  },
};
