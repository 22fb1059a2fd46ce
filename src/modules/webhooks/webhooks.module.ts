import type { EventPayloads } from '../../outbox/catalog.js';
import type { ModuleManifest } from '../manifest.js';
import { deliverWebhookJob } from './webhooks.job.js';
import { webhooksRoutes } from './webhooks.routes.js';
import { WebhookEndpoint } from './webhooks.schemas.js';
import { webhookFanOut } from './webhooks.subscriber.js';

const events = { 'webhook.test': WebhookEndpoint };

declare module '../../outbox/catalog.js' {
  interface EventCatalog extends EventPayloads<typeof events> {}
}

export const webhooksModule: ModuleManifest = {
  name: 'webhooks',
  routes: webhooksRoutes,
  jobs: [deliverWebhookJob],
  events,
  subscribers: [webhookFanOut],
};
