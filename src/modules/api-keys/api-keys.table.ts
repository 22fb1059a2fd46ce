import type { Mode } from '../../lib/tenant.js';

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  name: string | null;
  /** The visible start of the key, e.g. `pt_test_4f9c`, to recognise it in lists. */
  prefix: string;
  /** Hex SHA-256 of the whole key; the key itself is never stored. */
  key_hash: string;
  /** `*` for all scopes, else a comma-separated list such as `tracks:read,payments:write`. */
  scopes: string;
  created_at: string;
  revoked_at: string | null;
}

declare module '../../db/schema.js' {
  interface Database {
    api_keys: ApiKeysTable;
  }
}
