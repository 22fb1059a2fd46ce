import type { ModuleManifest } from '../manifest.js';
import { portalPages, unknownPortalLink } from './portal.plugin.js';
import { portalRoutes } from './portal.routes.js';

export const portalModule: ModuleManifest = {
  name: 'portal',
  routes: portalRoutes,
  pages: [{ prefix: '/c', plugin: portalPages, badUrl: unknownPortalLink }],
};
