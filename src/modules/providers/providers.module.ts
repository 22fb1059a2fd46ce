import type { ModuleManifest } from '../manifest.js';
import { providersRoutes } from './providers.routes.js';

export const providersModule: ModuleManifest = { name: 'providers', routes: providersRoutes };
