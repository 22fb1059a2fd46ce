import type { Mode } from '../api-keys/api-keys.table.js';

/** Requests per key per UTC day; counters are added to, so several nodes can write them. */
export interface ApiUsageTable {
  workspace_id: string;
  mode: Mode;
  day: string;
  key_id: string;
  requests: number;
  errors: number;
}
