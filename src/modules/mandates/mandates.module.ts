import type { EventPayloads } from '../../outbox/catalog.js';
import type { ModuleManifest } from '../manifest.js';
import { consentPages, unknownLink } from './consent.plugin.js';
import { mandatesRoutes } from './mandates.routes.js';
import { Mandate } from './mandates.schemas.js';
import { consentExpirySweep, mandateActivationSweep } from './mandates.sweeps.js';

const events = {
  'mandate.created': Mandate,
  'mandate.activated': Mandate,
  'mandate.replaced': Mandate,
  'mandate.failed': Mandate,
  'mandate.expired': Mandate,
  'mandate.revoked': Mandate,
};

declare module '../../outbox/catalog.js' {
  interface EventCatalog extends EventPayloads<typeof events> {}
}

export const mandatesModule: ModuleManifest = {
  name: 'mandates',
  routes: mandatesRoutes,
  events,
  sweeps: [consentExpirySweep, mandateActivationSweep],
  pages: [{ prefix: '/consent', plugin: consentPages, badUrl: unknownLink }],
};
