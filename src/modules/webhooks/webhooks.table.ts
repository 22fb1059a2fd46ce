import type { Mode } from '../../lib/tenant.js';

export type WebhookEndpointStatus = 'enabled' | 'disabled';

export interface WebhookEndpointsTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  url: string;
  description: string | null;
  /** JSON array of event types; `["*"]` for all. */
  event_types: string;
  /** `whsec_<base64>`, kept to sign deliveries. */
  secret: string;
  status: WebhookEndpointStatus;
  created_at: string;
  updated_at: string;
  disabled_at: string | null;
  /** When it was last enabled: it receives the events created from then on. */
  enabled_at: string | null;
}

/** One row per delivery attempt. */
export interface WebhookDeliveriesTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt_number: number;
  status: 'succeeded' | 'failed';
  response_status: number | null;
  error: string | null;
  duration_ms: number;
  attempted_at: string;
  /** When the next attempt is due, or null when this was the last one. */
  next_attempt_at: string | null;
}

declare module '../../db/schema.js' {
  interface Database {
    webhook_endpoints: WebhookEndpointsTable;
    webhook_deliveries: WebhookDeliveriesTable;
  }
}
