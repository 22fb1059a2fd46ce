import type { Mode } from '../../lib/tenant.js';

export type TrackStatus = 'active' | 'completed' | 'archived';

export interface TracksTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  customer_id: string;
  title: string;
  amount: number;
  balance: number;
  amount_paid: number;
  currency: string;
  installments: number | null;
  status: TrackStatus;
  /** `YYYY-MM-DD`. */
  due_date: string | null;
  metadata: string;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

declare module '../../db/schema.js' {
  interface Database {
    tracks: TracksTable;
  }
}
