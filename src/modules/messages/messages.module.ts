import type { EventPayloads } from '../../outbox/catalog.js';
import type { ModuleManifest } from '../manifest.js';
import { messagesRoutes } from './messages.routes.js';
import { InboundMessage } from './messages.schemas.js';

const events = {
  'message.received': InboundMessage,
};

declare module '../../outbox/catalog.js' {
  interface EventCatalog extends EventPayloads<typeof events> {}
}

export const messagesModule: ModuleManifest = { name: 'messages', routes: messagesRoutes, events };
