import { eachDue } from '../../jobs/sweep-batches.js';
import { earliest, type SweepDefinition } from '../../jobs/sweeps.js';
import * as repo from './exports.repository.js';
import { exportStorage } from './exports.storage.js';

const BATCH = 200;

/**
 * Files of done exports whose download link expired are removed, and the export marked (`file_removed_at`), so
 * files do not pile up; a download after that says the file was removed.
 */
export const cleanExportsSweep: SweepDefinition = {
  name: 'exports.clean',
  everyMs: 5 * 60_000,
  async run(ctx, scope) {
    const storage = exportStorage(ctx.config);
    const now = scope.now.toISOString();
    return eachDue(scope, {
      batch: BATCH,
      read: (limit) => repo.expiredFiles(ctx.db, scope, now, limit),
      idOf: (found) => found.id,
      async handle(found) {
        try {
          if (found.storage_key) await storage.remove(found.storage_key);
          return await repo.markFileRemoved(ctx.db, found.id, now);
        } catch (error) {
          // One file that cannot be removed holds up no other; the next sweep tries it again.
          ctx.log?.error({ err: error, exportId: found.id }, 'export file could not be removed');
          return false;
        }
      },
    });
  },
  async nextDueAfter(ctx, scope) {
    return earliest(await repo.nextExpiredFile(ctx.db, scope, scope.now.toISOString()));
  },
};
