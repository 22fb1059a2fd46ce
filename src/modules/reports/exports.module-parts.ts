import type { EventPayloads } from '../../outbox/catalog.js';
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

/** The exports' part of the reports module: merged into its manifest (routes registered beside the reports'). */
export const exportsParts = {
  routes: exportsRoutes,
  jobs: [writeExportJob],
  sweeps: [cleanExportsSweep],
  events,
};
