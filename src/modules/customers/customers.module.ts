import type { EventPayloads } from '../../outbox/catalog.js';
import type { ModuleManifest } from '../manifest.js';
import { customersRoutes } from './customers.routes.js';
import { Customer } from './customers.schemas.js';

const events = {
  'customer.created': Customer,
  'customer.updated': Customer,
  'customer.archived': Customer,
};

declare module '../../outbox/catalog.js' {
  interface EventCatalog extends EventPayloads<typeof events> {}
}

export const customersModule: ModuleManifest = { name: 'customers', routes: customersRoutes, events };
