import type { Expression, QueryCreator } from 'kysely';
import type { Database, DbOrTrx } from '../db/schema.js';
import { rowsOf, shaped } from '../db/shaped-statements.js';
import { newId } from '../lib/ids.js';
import type { Tenant } from '../lib/tenant.js';
import type { EventCatalog, EventType } from './catalog.js';
import type { EventsTable } from './events.table.js';

/** The event as delivered: `{ id, type, createdAt, livemode, data: { object, previous_attributes? } }`. */
export function eventToApi(row: EventsTable) {
  return {
    id: row.id,
    type: row.type,
    createdAt: row.created_at,
    livemode: row.mode === 'live',
    data: {
      object: JSON.parse(row.data) as unknown,
      ...(row.previous_attributes === null
        ? {}
        : { previous_attributes: JSON.parse(row.previous_attributes) as Record<string, unknown> }),
    },
  };
}

/**
 * The old values of the fields that differ between two versions of an API object: an update event's
 * `previous_attributes` (the update time itself is left out). Null when nothing differs.
 */
export function changedFrom<T extends object>(before: T, after: T): Partial<T> | null {
  const changed = Object.fromEntries(
    Object.entries(before).filter(
      ([key, value]) =>
        key !== 'updatedAt' &&
        JSON.stringify(value) !== JSON.stringify((after as Record<string, unknown>)[key]),
    ),
  ) as Partial<T>;
  return Object.keys(changed).length > 0 ? changed : null;
}

const insertStatement = shaped((db, rows: readonly EventsTable[]) => db.insertInto('events').values(rows));

/**
 * Writes an event to the outbox in the caller's transaction, at the tenant's time. The relay hands it to
 * the subscribers (webhooks among them) after the transaction commits; nothing else happens here.
 */
export async function recordEvent<T extends EventType>(
  trx: DbOrTrx,
  tenant: Tenant,
  type: T,
  object: EventCatalog[T],
  previousAttributes?: Partial<EventCatalog[T]> | null,
): Promise<EventsTable> {
  const row = eventRow(tenant, type, object, previousAttributes);
  await recordEvents(trx, [row]);
  return row;
}

/** Writes event rows made by `eventRow`, in one statement. */
export async function recordEvents(trx: DbOrTrx, rows: readonly EventsTable[]): Promise<void> {
  if (rows.length > 0) await rowsOf(trx, insertStatement(trx, rows));
}

/** An event's row, at the tenant's time, for `recordEvent` or for `eventsInsert` in a statement of its caller. */
export function eventRow<T extends EventType>(
  tenant: Tenant,
  type: T,
  object: EventCatalog[T],
  previousAttributes?: Partial<EventCatalog[T]> | null,
): EventsTable {
  const now = tenant.clock.now();
  return {
    id: newId('event', now),
    workspace_id: tenant.workspaceId,
    mode: tenant.mode,
    type,
    data: JSON.stringify(object),
    previous_attributes: previousAttributes ? JSON.stringify(previousAttributes) : null,
    created_at: now.toISOString(),
    dispatched_at: null,
  };
}

/**
 * The insert of event rows as part of a caller's larger statement (a data-modifying CTE on PostgreSQL: the
 * payment's one statement); a row's `data` may be an expression of that statement.
 */
export function eventsInsert(
  creator: QueryCreator<Database>,
  rows: readonly (Omit<EventsTable, 'data'> & { data: string | Expression<string> })[],
) {
  return creator.insertInto('events').values(rows);
}

export function findEvent(db: DbOrTrx, id: string) {
  return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
}
