import type { ModuleManifest } from '../manifest.js';
import { accountRoutes } from './account.routes.js';

export const accountModule: ModuleManifest = { name: 'account', routes: accountRoutes };
