import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../context.js';
import type { EventPayloads } from '../../outbox/catalog.js';
import type { ModuleManifest } from '../manifest.js';
import { checkoutPages, notFound } from './checkout.plugin.js';
import { notFound as payLinkNotFound, payLinkPages } from './pay-link.plugin.js';
import { payLinksRoutes } from './pay-links.routes.js';
import { PayLink } from './pay-links.schemas.js';
import { providersRoutes } from './providers.routes.js';
import { notFound as simulatorNotFound, simulatorPages } from './simulator.plugin.js';

const events = {
  'pay_link.created': PayLink,
  'pay_link.paid': PayLink,
  'pay_link.revoked': PayLink,
};

declare module '../../outbox/catalog.js' {
  interface EventCatalog extends EventPayloads<typeof events> {}
}

/** Provider callbacks (each in a scope that keeps the raw body for signatures) and pay links, side by side. */
const routes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, options) => {
  await app.register(providersRoutes, options);
  await app.register(payLinksRoutes, options);
};

export const providersModule: ModuleManifest = {
  name: 'providers',
  routes,
  events,
  pages: [
    { prefix: '/checkout', plugin: checkoutPages, badUrl: notFound },
    { prefix: '/simulator', plugin: simulatorPages, badUrl: simulatorNotFound },
    { prefix: '/pay', plugin: payLinkPages, badUrl: payLinkNotFound },
  ],
};
