import type { Mode } from '../api-keys/api-keys.table.js';

export interface PaymentsTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  track_id: string;
  customer_id: string;
  amount: number;
  currency: string;
  method: string;
  status: 'recorded';
  paid_at: string;
  reference: string | null;
  /** Where the payment came from: `api` for recorded by an integrator, later `collection` for attempts. */
  source: string;
  metadata: string;
  created_at: string;
}
