import type { ModuleManifest } from '../manifest.js';
import { eventsRoutes } from './events.routes.js';

export const eventsModule: ModuleManifest = { name: 'events', routes: eventsRoutes };
