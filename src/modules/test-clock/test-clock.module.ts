import type { ModuleManifest } from '../manifest.js';
import { finishAdvanceJob } from './test-clock.job.js';
import { testClockRoutes } from './test-clock.routes.js';

export const testClockModule: ModuleManifest = {
  name: 'test-clock',
  routes: testClockRoutes,
  jobs: [finishAdvanceJob],
};
