import type { EventPayloads } from '../../outbox/catalog.js';
import type { ModuleManifest } from '../manifest.js';
import { disputesRoutes } from './disputes.routes.js';
import { Dispute } from './disputes.schemas.js';

const events = {
  'dispute.created': Dispute,
  'dispute.accepted': Dispute,
  'dispute.rejected': Dispute,
};

declare module '../../outbox/catalog.js' {
  interface EventCatalog extends EventPayloads<typeof events> {}
}

/**
 * The collections workflow: promises to pay and disputes, which hold back reminders, attempts and late fees on
 * what they cover (`holds.ts`), and resolve with events of their own.
 */
export const collectionsModule: ModuleManifest = { name: 'collections', routes: disputesRoutes, events };
