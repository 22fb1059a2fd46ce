import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { AppError } from '../lib/app-error.js';
import { planById } from '../modules/account/plans.js';

/** Per-key, per-minute limit from the workspace's plan, or RATE_LIMIT_PER_MINUTE when set. */
export function limitFor(config: Readonly<Config>, subscriptionPlan: string): number {
  return config.rateLimitPerMinute ?? planById(subscriptionPlan).rateLimitPerMinute;
}

export const rateLimitPlugin = fp<{ config: Readonly<Config> }>(async (app: FastifyInstance, { config }) => {
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 })
    : null;
  if (redis) app.addHook('onClose', async () => void (await redis.quit()));

  await app.register(rateLimit, {
    global: false,
    timeWindow: 60_000,
    ...(redis ? { redis, nameSpace: 'paytrack-rl:' } : {}),
    // A Redis outage must not stop payments: the limiter lets requests through until it answers again.
    skipOnError: true,
    keyGenerator: (request) => request.auth?.keyId ?? request.ip,
    max: async (request) => limitFor(config, request.auth?.workspace.subscriptionPlan ?? ''),
    // Unauthenticated requests never reach this hook; the auth hook answers them first.
    allowList: (request) => request.auth === null,
    errorResponseBuilder: (_request, context) =>
      new AppError(
        'rate_limited',
        `Rate limit of ${context.max} requests a minute reached; retry in ${context.after}.`,
        {
          limit: context.max,
          retry_after_seconds: Math.ceil(context.ttl / 1000),
        },
      ),
  });
  // One hook of this scope rather than the plugin's per-route ones, which would run after every scope-level
  // hook: this way it runs between authentication and the scope check, so a 403 counts and carries the headers.
  app.addHook('onRequest', app.rateLimit());
});
