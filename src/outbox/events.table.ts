import type { Mode } from '../lib/tenant.js';

/** The outbox: written in the same transaction as the change that causes the event. */
export interface EventsTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  type: string;
  /** JSON of the object the event is about. */
  data: string;
  /** JSON of the changed fields' values before the change, on update events. */
  previous_attributes: string | null;
  created_at: string;
}

/**
 * The events the relay has not handed to their subscribers yet, by id: a trigger writes each event's id in the
 * statement that writes the event (migration 0039), and the relay deletes it in the transaction that hands the
 * event on. Kept apart from `events` so that relaying an event does not write its row again.
 */
export interface EventOutboxTable {
  event_id: string;
}

declare module '../db/schema.js' {
  interface Database {
    events: EventsTable;
    event_outbox: EventOutboxTable;
  }
}
