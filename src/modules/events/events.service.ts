import type { DbOrTrx } from '../../db/schema.js';
import { enqueue } from '../../jobs/queue.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Tenant } from '../tenant.js';
import { hasEnabledEndpoint } from '../webhooks/webhooks.repository.js';
import type { EventsTable } from './events.table.js';

/** Event types an endpoint can subscribe to. */
export const EVENT_TYPES = [
  'customer.created',
  'customer.updated',
  'customer.archived',
  'track.created',
  'track.updated',
  'track.completed',
  'track.archived',
  'payment.recorded',
  'webhook.test',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The event as delivered: `{ id, type, createdAt, livemode, data: { object } }`. */
export function eventToApi(row: EventsTable) {
  return {
    id: row.id,
    type: row.type,
    createdAt: row.created_at,
    livemode: row.mode === 'live',
    data: { object: JSON.parse(row.data) as unknown },
  };
}

/**
 * Writes an event to the outbox in the caller's transaction and queues its fan-out to webhook endpoints.
 * `onlyEndpointId` sends it to that endpoint alone (test events).
 */
export async function recordEvent(
  trx: DbOrTrx,
  clock: Clock,
  tenant: Tenant,
  type: EventType,
  object: unknown,
  onlyEndpointId?: string,
): Promise<EventsTable> {
  const row: EventsTable = {
    id: newId('event'),
    workspace_id: tenant.workspaceId,
    mode: tenant.mode,
    type,
    data: JSON.stringify(object),
    created_at: clock.now().toISOString(),
  };
  await trx.insertInto('events').values(row).execute();
  // An endpoint receives the events that happen while it is enabled; with none, only the record is kept.
  if (!onlyEndpointId && !(await hasEnabledEndpoint(trx, tenant))) return row;
  await enqueue(trx, clock, 'events.dispatch', {
    eventId: row.id,
    ...(onlyEndpointId ? { endpointId: onlyEndpointId } : {}),
  });
  return row;
}
