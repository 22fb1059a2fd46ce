import type { Mode } from '../../lib/tenant.js';

export const EXPORT_REPORTS = ['summary', 'collections', 'overdue', 'payments', 'ledger'] as const;
export type ExportReport = (typeof EXPORT_REPORTS)[number];

/** csv: a header row then a row per record; json: one JSON array; jsonl: JSON lines, one object per line. */
export const EXPORT_FORMATS = ['csv', 'json', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

export interface ReportExportsTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  report: ExportReport;
  format: ExportFormat;
  range_from: string | null;
  range_to: string | null;
  status: ExportStatus;
  rows_written: number;
  /** Null until known: before the run, and until the end for reports counted as they are written. */
  rows_total: number | null;
  /** Where the file is in the export storage, once written. */
  storage_key: string | null;
  error: string | null;
  /** The download link works until then; the clean-up sweep removes the file after. */
  expires_at: string | null;
  file_removed_at: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

/** The key that signs download links when `EXPORT_SIGNING_SECRET` is not set: one row, made once. */
export interface ExportSigningTable {
  id: string;
  secret: string;
  created_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    report_exports: ReportExportsTable;
    export_signing: ExportSigningTable;
  }
}
