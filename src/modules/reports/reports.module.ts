import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../context.js';
import type { ModuleManifest } from '../manifest.js';
import { exportsParts } from './exports.module-parts.js';
import { reportsRoutes } from './reports.routes.js';
import { rollupSweep } from './rollups.sweep.js';

const routes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, options) => {
  await app.register(reportsRoutes, options);
  await app.register(exportsParts.routes, options);
};

export const reportsModule: ModuleManifest = {
  name: 'reports',
  routes,
  events: exportsParts.events,
  jobs: exportsParts.jobs,
  sweeps: [...exportsParts.sweeps, rollupSweep],
};
