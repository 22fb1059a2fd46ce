import type { Mode } from '../../lib/tenant.js';

export type CustomerStatus = 'active' | 'archived';

export interface CustomersTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  name: string;
  email: string | null;
  phone: string;
  notes: string | null;
  /** JSON object of string values. */
  metadata: string;
  status: CustomerStatus;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
  /** Comma-separated channels the customer asked not to be messaged on (`sms`, `whatsapp`, `email`). */
  opt_outs: string;
  /** IANA time zone of the customer's quiet hours; null: the workspace's. */
  time_zone: string | null;
}

declare module '../../db/schema.js' {
  interface Database {
    customers: CustomersTable;
  }
}
