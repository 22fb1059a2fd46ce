import type { EventPayloads } from '../../outbox/catalog.js';
import type { ModuleManifest } from '../manifest.js';
import { writeExportJob } from './exports.job.js';
import { exportsRoutes } from './exports.routes.js';
import { ReportExport } from './exports.schemas.js';
import { cleanExportsSweep } from './exports.sweeps.js';

const events = {
  'export.completed': ReportExport,
};

declare module '../../outbox/catalog.js' {
  interface EventCatalog extends EventPayloads<typeof events> {}
}

/** Files of reports, payments and ledger entries, written by the worker and downloaded through signed links. */
export const exportsModule: ModuleManifest = {
  name: 'exports',
  routes: exportsRoutes,
  jobs: [writeExportJob],
  sweeps: [cleanExportsSweep],
  events,
};
