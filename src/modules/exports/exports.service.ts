import type { Readable } from 'node:stream';
import { loadTenant } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { enqueue } from '../../jobs/queue.js';
import { AppError, fieldError, notFound } from '../../lib/app-error.js';
import { newId } from '../../lib/ids.js';
import { toInstant } from '../../lib/instant.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import { writeExportJob } from './exports.job.js';
import { toApi } from './exports.mapper.js';
import * as repo from './exports.repository.js';
import type { ExportDownloadQuery, ReportExport, ReportExportCreate } from './exports.schemas.js';
import { linkKey, signingSecret } from './exports.secret.js';
import { isExpired, signedExpiry } from './exports.signing.js';
import { exportStorage, FILE_TYPES } from './exports.storage.js';
import type { ReportExportsTable } from './exports.table.js';

/** `POST /reports/export`: the export row and the job that writes its file, in one transaction. */
export async function createExport(
  ctx: AppContext,
  tenant: Tenant,
  input: ReportExportCreate,
): Promise<ReportExport> {
  const from = input.from === undefined ? null : toInstant(input.from, 'from');
  const to = input.to === undefined ? null : toInstant(input.to, 'to');
  if (from !== null && to !== null && from > to) throw fieldError({ from: 'must not be after to' });
  const key = await linkKey(ctx);
  const now = tenant.clock.now();
  const row: ReportExportsTable = {
    id: newId('export', now),
    workspace_id: tenant.workspaceId,
    mode: tenant.mode,
    report: input.report,
    format: input.format,
    range_from: from,
    range_to: to,
    status: 'queued',
    rows_written: 0,
    rows_total: null,
    storage_key: null,
    error: null,
    expires_at: null,
    file_removed_at: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    completed_at: null,
  };
  return inTransaction(ctx, tenant, async (trx) => {
    await repo.insert(trx, row);
    await enqueue(trx, ctx.clock, writeExportJob, {
      exportId: row.id,
      workspaceId: tenant.workspaceId,
      mode: tenant.mode,
    });
    return toApi(row, key);
  });
}

export async function getExport(ctx: AppContext, tenant: TenantRef, id: string): Promise<ReportExport> {
  const row = await repo.findById(ctx.db, tenant, id);
  if (!row) throw notFound('export', id);
  return toApi(row, await linkKey(ctx));
}

/** A tenant's latest exports, newest first, as the API shows each (the console lists them; the API has no list). */
export async function recentExports(ctx: AppContext, tenant: TenantRef, limit = 20): Promise<ReportExport[]> {
  const [rows, key] = await Promise.all([repo.listRecent(ctx.db, tenant, limit), linkKey(ctx)]);
  return rows.map((row) => toApi(row, key));
}

export interface ExportDownload {
  stream: Readable;
  contentType: string;
  filename: string;
}

const refused = (message: string, reason: string, details: Record<string, unknown> = {}) =>
  new AppError('forbidden', message, { reason, ...details });

/**
 * `GET /reports/exports/{id}/download`, without a key: the signature vouches for the id and expiry. A link whose
 * id, expiry or signature was changed is refused (403, `details.reason` invalid_signature), as is one past its
 * expiry (403, expired); a file removed after expiry is 404 (file_removed), an export not done 409.
 */
export async function openDownload(
  ctx: AppContext,
  id: string,
  query: ExportDownloadQuery,
): Promise<ExportDownload> {
  // The signature first: a changed link costs no database read beyond the (kept) signing key.
  const expires = signedExpiry(await signingSecret(ctx), { id, ...query });
  if (expires === null) {
    throw refused(
      'This download link is not valid: its signature does not match its export id and expiry. Use the downloadUrl of the export exactly as given.',
      'invalid_signature',
    );
  }
  const row = await repo.findForDownload(ctx.db, id);
  if (!row) throw notFound('export', id);
  if (row.file_removed_at !== null) {
    throw new AppError(
      'not_found',
      `The file of export ${id} was removed at ${row.file_removed_at}, after its download link expired. Create a new export.`,
      { resource: 'export', id, reason: 'file_removed', fileRemovedAt: row.file_removed_at },
    );
  }
  // The link's time is the export's tenant's (a moved test clock included), as its expiresAt is.
  const tenant = await loadTenant(ctx.db, ctx.clock, { workspaceId: row.workspace_id, mode: row.mode });
  if (isExpired(expires, tenant.clock.now().getTime())) {
    const expiredAt = new Date(expires * 1000).toISOString();
    throw refused(
      `This download link expired at ${expiredAt}; links work for one hour after the export is done. Create a new export.`,
      'expired',
      { expiredAt },
    );
  }
  if (row.status !== 'done' || row.storage_key === null) {
    throw new AppError('invalid_state', `Export ${id} is ${row.status}: there is no file to download yet.`, {
      status: row.status,
      action: 'download',
    });
  }
  const stream = await exportStorage(ctx.config).get(row.storage_key);
  if (!stream) {
    throw new AppError(
      'not_found',
      `The file of export ${id} is missing from the export storage. Create a new export.`,
      {
        resource: 'export',
        id,
        reason: 'file_missing',
      },
    );
  }
  const type = FILE_TYPES[row.format];
  return { stream, contentType: type.contentType, filename: `${row.report}-${row.id}.${type.ext}` };
}
