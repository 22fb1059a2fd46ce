import type { ModuleManifest } from '../manifest.js';
import { checkoutPages, notFound } from './checkout.plugin.js';
import { providersRoutes } from './providers.routes.js';
import { notFound as simulatorNotFound, simulatorPages } from './simulator.plugin.js';

export const providersModule: ModuleManifest = {
  name: 'providers',
  routes: providersRoutes,
  pages: [
    { prefix: '/checkout', plugin: checkoutPages, badUrl: notFound },
    { prefix: '/simulator', plugin: simulatorPages, badUrl: simulatorNotFound },
  ],
};
