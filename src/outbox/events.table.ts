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
  /** When the relay handed the event to its subscribers; null until then. */
  dispatched_at: string | null;
}

declare module '../db/schema.js' {
  interface Database {
    events: EventsTable;
  }
}
