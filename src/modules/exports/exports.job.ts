import { Type } from 'typebox';
import { loadTenant } from '../../clock/tenant-clocks.js';
import { defineJob } from '../../jobs/job.js';
import { writeExport } from './exports.writer.js';

/**
 * Writes the file of one export. A failure is recorded on the export (failed, with its error) and not retried;
 * the job runs again only when a run was cut off (the worker stopped or died), at most three times in all.
 */
export const writeExportJob = defineJob({
  name: 'reports.export',
  payload: Type.Object({
    exportId: Type.String(),
    workspaceId: Type.String(),
    mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
  }),
  maxAttempts: 3,
  backoffMs: () => 10_000,
  async run(ctx, { exportId, workspaceId, mode }, job) {
    const tenant = await loadTenant(ctx.db, ctx.clock, { workspaceId, mode });
    await writeExport(ctx, tenant, exportId, job);
    return undefined;
  },
});
