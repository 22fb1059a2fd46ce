import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../context.js';
import type { EventPayloads } from '../../outbox/catalog.js';
import type { ModuleManifest } from '../manifest.js';
import { tracksRoutes } from './tracks.routes.js';
import { Track } from './tracks.schemas.js';
import { writeOffsRoutes } from './write-offs.routes.js';
import { TrackWriteOffEvent } from './write-offs.schemas.js';

const events = {
  'track.created': Track,
  'track.updated': Track,
  'track.completed': Track,
  'track.archived': Track,
  'track.written_off': TrackWriteOffEvent,
  'track.write_off_reversed': TrackWriteOffEvent,
};

declare module '../../outbox/catalog.js' {
  interface EventCatalog extends EventPayloads<typeof events> {}
}

const routes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, options) => {
  await app.register(tracksRoutes, options);
  await app.register(writeOffsRoutes, options);
};

export const tracksModule: ModuleManifest = { name: 'tracks', routes, events };
