import type { Mode } from '../../lib/tenant.js';

export type ActorType = 'user' | 'key' | 'payer' | 'system';

/** One change in the audit trail; append-only (the database refuses updates and deletes). */
export interface AuditEntriesTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  actor_type: ActorType;
  actor_id: string | null;
  action: string;
  record_type: string | null;
  record_id: string | null;
  /** JSON: field -> [before, after]. */
  changes: string;
  reason: string | null;
  request_id: string | null;
  created_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    audit_entries: AuditEntriesTable;
  }
}
