import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { AppError } from '../lib/app-error.js';
import { subscriptionPlanById } from '../modules/workspaces/subscription-plans.js';

/** Per-key, per-minute limit from the workspace's plan, or RATE_LIMIT_PER_MINUTE when set. */
export function limitFor(config: Readonly<Config>, subscriptionPlan: string): number {
  return config.rateLimitPerMinute ?? subscriptionPlanById(subscriptionPlan).rateLimitPerMinute;
}

type LimitHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

declare module 'fastify' {
  interface FastifyInstance {
    limits: {
      /** Counts a keyed request against its key's per-minute limit. */
      perKey: LimitHook;
      /** Counts a failed authentication against its address's per-minute limit. */
      failedAuth: LimitHook;
    };
  }
}

/** A connection to the limiters' Redis when REDIS_URL is set, closed with the app. */
function limiterStore(app: FastifyInstance, config: Readonly<Config>) {
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 })
    : null;
  if (redis) app.addHook('onClose', async () => void (await redis.quit()));
  // A Redis outage must not stop requests: the limiter lets them through until it answers again.
  return { ...(redis ? { redis, nameSpace: 'paytrack-rl:' } : {}), skipOnError: true };
}

/** What a page's limiter throws once an address has made too many requests: the page answers it in HTML. */
export interface PageRateLimited extends Error {
  statusCode: 429;
  rateLimited: true;
}

/**
 * A per-address, per-minute limit on a page without a key (the consent and checkout pages), in the page's own
 * scope, counted across nodes through Redis when REDIS_URL is set, as the API's limits are.
 */
export async function pageRateLimit(
  app: FastifyInstance,
  config: Readonly<Config>,
  page: string,
  perMinute: number,
): Promise<void> {
  await app.register(rateLimit, {
    ...limiterStore(app, config),
    max: perMinute,
    timeWindow: 60_000,
    keyGenerator: (request) => `${page}:${request.ip}`,
    errorResponseBuilder: () =>
      Object.assign(new Error('rate limited'), { statusCode: 429, rateLimited: true }) as PageRateLimited,
  });
}

/**
 * The limiters, shared by all nodes through Redis when REDIS_URL is set. The caller places their hooks:
 * the per-key one after authentication, the failed-authentication one where authentication fails.
 */
export const rateLimitPlugin = fp<{ config: Readonly<Config> }>(async (app: FastifyInstance, { config }) => {
  await app.register(rateLimit, {
    ...limiterStore(app, config),
    global: false,
    timeWindow: 60_000,
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
  app.decorate('limits', {
    perKey: app.rateLimit({
      keyGenerator: (request) => request.auth?.keyId ?? request.ip,
      max: async (request) => limitFor(config, request.auth?.workspace.subscriptionPlan ?? ''),
      // Requests without a key never reach this hook's count: authentication answers them first.
      allowList: (request) => request.auth === null,
    }) as LimitHook,
    failedAuth: app.rateLimit({
      keyGenerator: (request) => `failed-auth:${request.ip}`,
      max: config.failedAuthPerMinute,
      // A 401 says nothing of a key's limit; the address's limit shows only once it refuses (429). The
      // plugin honours this per limiter, though its types list it for the plugin only.
      addHeadersOnExceeding: {
        'x-ratelimit-limit': false,
        'x-ratelimit-remaining': false,
        'x-ratelimit-reset': false,
      },
    } as RateLimitOptions) as LimitHook,
  });
});
