import type { Mode } from '../lib/tenant.js';

/** A request's response kept under its Idempotency-Key, written in the transaction of the change it made. */
export interface IdempotencyKeysTable {
  workspace_id: string;
  mode: Mode;
  idem_key: string;
  /** SHA-256 of the method, the URL and the body in canonical form. */
  request_hash: string;
  /** `processing` only on rows an earlier version left behind without a response. */
  status: 'processing' | 'completed';
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

declare module '../db/schema.js' {
  interface Database {
    idempotency_keys: IdempotencyKeysTable;
  }
}
