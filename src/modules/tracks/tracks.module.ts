import type { EventPayloads } from '../../outbox/catalog.js';
import type { ModuleManifest } from '../manifest.js';
import { tracksRoutes } from './tracks.routes.js';
import { Track } from './tracks.schemas.js';

const events = {
  'track.created': Track,
  'track.updated': Track,
  'track.completed': Track,
  'track.archived': Track,
};

declare module '../../outbox/catalog.js' {
  interface EventCatalog extends EventPayloads<typeof events> {}
}

export const tracksModule: ModuleManifest = { name: 'tracks', routes: tracksRoutes, events };
