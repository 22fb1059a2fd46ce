import type { Mode } from '../lib/tenant.js';
import type { ObligationStatus, ScheduleStatus } from '../modules/schedules/schedules.table.js';

/** What a write-off did to one obligation: the whole ask written off (`written_off`), or its amount lowered. */
export interface WrittenOffObligation {
  id: string;
  statusBefore: ObligationStatus;
  amountBefore: number;
  statusAfter: ObligationStatus;
  amountAfter: number;
}

/** A schedule a write-off completed (nothing left to collect), with what it was before. */
export interface CompletedSchedule {
  id: string;
  statusBefore: ScheduleStatus;
  topUpAtBefore: string | null;
}

/** What a business gave up of a plan's balance; `reversed_at` once it was undone. */
export interface WriteOffsTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  track_id: string;
  amount: number;
  reason: string;
  /** The `plan.written_off` entry: reversible while it is the plan's last entry that moves money. */
  ledger_entry_id: string;
  /** JSON `WrittenOffObligation[]`. */
  obligations: string;
  /** JSON `CompletedSchedule[]`. */
  schedules: string;
  created_at: string;
  reversed_at: string | null;
}

declare module '../db/schema.js' {
  interface Database {
    write_offs: WriteOffsTable;
  }
}
