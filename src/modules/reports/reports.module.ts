import type { ModuleManifest } from '../manifest.js';
import { reportsRoutes } from './reports.routes.js';
import { rollupSweep } from './rollups.sweep.js';

export const reportsModule: ModuleManifest = {
  name: 'reports',
  routes: reportsRoutes,
  sweeps: [rollupSweep],
};
