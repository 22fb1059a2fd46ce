import type { DbOrTrx } from '../db/schema.js';
import { newId } from '../lib/ids.js';
import type { Tenant } from '../lib/tenant.js';
import type { EventCatalog, EventType } from './catalog.js';
import type { EventsTable } from './events.table.js';

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
 * Writes an event to the outbox in the caller's transaction, at the tenant's time. The relay hands it to
 * the subscribers (webhooks among them) after the transaction commits; nothing else happens here.
 */
export async function recordEvent<T extends EventType>(
  trx: DbOrTrx,
  tenant: Tenant,
  type: T,
  object: EventCatalog[T],
): Promise<EventsTable> {
  const now = tenant.clock.now();
  const row: EventsTable = {
    id: newId('event', now),
    workspace_id: tenant.workspaceId,
    mode: tenant.mode,
    type,
    data: JSON.stringify(object),
    created_at: now.toISOString(),
    dispatched_at: null,
  };
  await trx.insertInto('events').values(row).execute();
  return row;
}

export function findEvent(db: DbOrTrx, id: string) {
  return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
}
