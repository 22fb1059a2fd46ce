import type { EventPayloads } from '../../outbox/catalog.js';
import type { ModuleManifest } from '../manifest.js';
import { promisesRoutes } from './promises.routes.js';
import { PromiseToPay } from './promises.schemas.js';
import { promisesKept } from './promises.subscriber.js';
import { promisesFallingDueSweep } from './promises.sweeps.js';

const promiseEvents = {
  'promise.created': PromiseToPay,
  'promise.kept': PromiseToPay,
  'promise.broken': PromiseToPay,
  'promise.cancelled': PromiseToPay,
};

declare module '../../outbox/catalog.js' {
  interface EventCatalog extends EventPayloads<typeof promiseEvents> {}
}

/**
 * The collections workflow: promises to pay and disputes, which hold back reminders, attempts and late fees on
 * what they cover (`holds.ts`), and resolve with events of their own.
 */
export const collectionsModule: ModuleManifest = {
  name: 'collections',
  routes: promisesRoutes,
  events: { ...promiseEvents },
  sweeps: [promisesFallingDueSweep],
  subscribers: [promisesKept],
};
