import type { Mode } from '../modules/api-keys/api-keys.table.js';

export interface IdempotencyKeysTable {
  workspace_id: string;
  mode: Mode;
  idem_key: string;
  request_hash: string;
  status: 'processing' | 'completed';
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}
