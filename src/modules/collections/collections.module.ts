import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../context.js';
import type { EventPayloads } from '../../outbox/catalog.js';
import type { ModuleManifest } from '../manifest.js';
import { disputesRoutes } from './disputes.routes.js';
import { Dispute } from './disputes.schemas.js';
import { promisesRoutes } from './promises.routes.js';
import { PromiseToPay } from './promises.schemas.js';
import { promisesKept } from './promises.subscriber.js';
import { promisesFallingDueSweep } from './promises.sweeps.js';

const events = {
  'promise.created': PromiseToPay,
  'promise.kept': PromiseToPay,
  'promise.broken': PromiseToPay,
  'promise.cancelled': PromiseToPay,
  'dispute.created': Dispute,
  'dispute.accepted': Dispute,
  'dispute.rejected': Dispute,
};

declare module '../../outbox/catalog.js' {
  interface EventCatalog extends EventPayloads<typeof events> {}
}

const routes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, options) => {
  await app.register(promisesRoutes, options);
  await app.register(disputesRoutes, options);
};

/**
 * The collections workflow: promises to pay and disputes, which hold back reminders, attempts and late fees on
 * what they cover (`holds.ts`), and resolve with events of their own.
 */
export const collectionsModule: ModuleManifest = {
  name: 'collections',
  routes,
  events,
  sweeps: [promisesFallingDueSweep],
  subscribers: [promisesKept],
};
