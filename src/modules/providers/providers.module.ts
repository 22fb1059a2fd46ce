import type { ModuleManifest } from '../manifest.js';
import { checkoutPages, notFound } from './checkout.plugin.js';
import { providersRoutes } from './providers.routes.js';

export const providersModule: ModuleManifest = {
  name: 'providers',
  routes: providersRoutes,
  pages: [{ prefix: '/checkout', plugin: checkoutPages, badUrl: notFound }],
};
