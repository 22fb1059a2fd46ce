import type { ReportExport } from './exports.schemas.js';
import type { LinkKey } from './exports.secret.js';
import { downloadUrl } from './exports.signing.js';
import type { ReportExportsTable } from './exports.table.js';

/** Whether the file of a done export can still be downloaded (its clean-up has not removed it). */
function downloadable(row: ReportExportsTable): row is ReportExportsTable & { expires_at: string } {
  return row.status === 'done' && row.expires_at !== null && row.file_removed_at === null;
}

/** An export as the API and `export.completed` show it: its download link signed when the file can be downloaded. */
export function toApi(row: ReportExportsTable, key: LinkKey): ReportExport {
  return {
    id: row.id,
    report: row.report,
    format: row.format,
    from: row.range_from,
    to: row.range_to,
    status: row.status,
    progress: { rows: row.rows_written, total: row.rows_total },
    downloadUrl: downloadable(row)
      ? downloadUrl(key.publicUrl, key.secret, row.id, Date.parse(row.expires_at) / 1000)
      : null,
    expiresAt: row.expires_at,
    error: row.error,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  };
}
