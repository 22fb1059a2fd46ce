import type { EventPayloads } from '../../outbox/catalog.js';
import type { ModuleManifest } from '../manifest.js';
import { attemptsRoutes } from './attempts.routes.js';
import { Attempt } from './attempts.schemas.js';
import { createAttemptsSweep, runAttemptsSweep } from './attempts.sweeps.js';

const events = {
  'attempt.created': Attempt,
  'attempt.blocked': Attempt,
  'attempt.succeeded': Attempt,
  'attempt.failed': Attempt,
};

declare module '../../outbox/catalog.js' {
  interface EventCatalog extends EventPayloads<typeof events> {}
}

export const attemptsModule: ModuleManifest = {
  name: 'attempts',
  routes: attemptsRoutes,
  events,
  sweeps: [createAttemptsSweep, runAttemptsSweep],
};
