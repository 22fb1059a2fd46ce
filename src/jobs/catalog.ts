import { deliverWebhookJob, dispatchEventJob } from '../modules/webhooks/webhooks.job.js';
import type { JobDefinition } from './job.js';

/** Every job the worker runs, by name. */
export const jobCatalog = {
  'events.dispatch': dispatchEventJob,
  'webhooks.deliver': deliverWebhookJob,
  // biome-ignore lint/suspicious/noExplicitAny: each job has its own payload type
} satisfies Record<string, JobDefinition<any>>;

export type JobName = keyof typeof jobCatalog;
export type JobPayload<N extends JobName> = (typeof jobCatalog)[N] extends JobDefinition<infer P> ? P : never;
