import type { ModuleManifest } from '../manifest.js';
import { testClockRoutes } from './test-clock.routes.js';

export const testClockModule: ModuleManifest = { name: 'test-clock', routes: testClockRoutes };
