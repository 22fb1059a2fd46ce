import type { Mode } from '../../lib/tenant.js';

/** Requests per key per UTC day; counters are added to, so several nodes can write them. */
export interface ApiUsageTable {
  workspace_id: string;
  mode: Mode;
  day: string;
  key_id: string;
  requests: number;
  errors: number;
}

declare module '../../db/schema.js' {
  interface Database {
    api_usage: ApiUsageTable;
  }
}
