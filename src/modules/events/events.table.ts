import type { Mode } from '../api-keys/api-keys.table.js';

/** The outbox: written in the same transaction as the change that causes the event. */
export interface EventsTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  type: string;
  /** JSON of the object the event is about. */
  data: string;
  created_at: string;
}
