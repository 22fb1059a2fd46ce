import type { Mode } from './api-keys/api-keys.table.js';

/** Whose data a request acts on: one workspace, in test or live mode. Every query filters by both. */
export interface Tenant {
  workspaceId: string;
  mode: Mode;
}
