import Fastify, { type FastifyInstance } from 'fastify';
import { createContext } from './assembly.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import type { DialectName } from './db/dialect.js';
import type { Db } from './db/schema.js';
import { authPlugin, scopePlugin } from './http/auth.js';
import { ok } from './http/envelope.js';
import { registerErrorHandler } from './http/errors.js';
import { registerHomePage } from './http/home-page.js';
import { idempotencyPlugin } from './http/idempotency.js';
import { registerMetrics } from './http/metrics.js';
import { registerNotFound } from './http/not-found.js';
import { registerDocs, registerOpenApi } from './http/openapi.js';
import { rateLimitPlugin } from './http/rate-limit.js';
import { registerRequestGuards } from './http/request-guards.js';
import { registerFirstHeaders } from './http/security-headers.js';
import { type HttpLimits, serverOptions } from './http/server-options.js';
import { registerValidation } from './http/validation.js';
import type { Clock } from './lib/clock.js';
import { UsageRecorder } from './modules/account/usage.recorder.js';
import { auditTrailPlugin } from './modules/audit/index.js';
import { modules } from './modules/index.js';
import type { Ports } from './ports/ports.js';

export interface BuildAppOptions {
  config: Readonly<Config>;
  db: Db;
  dialect: DialectName;
  /** The app's clock; system time unless a test freezes it. */
  clock?: Clock;
  /** The outside world; built from the configuration unless a test brings its own. */
  ports?: Ports;
  /** false for no log; pino options (a stream, say) on top of the configured level and serializers. */
  logger?: boolean | object;
  /** Request and header timeouts; tests shorten them. */
  http?: Partial<HttpLimits>;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    usage: UsageRecorder;
  }
}

/** The whole HTTP service, ready for `inject` or `listen`; it never listens by itself. */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const ctx: AppContext = createContext(options);

  const pages = modules.flatMap((module) =>
    (module.pages ?? []).flatMap(({ prefix, badUrl }) => (badUrl ? [{ prefix, badUrl }] : [])),
  );
  const app = Fastify(serverOptions(options.config, { ...options, pages }));

  app.decorate('ctx', ctx);
  const usage = new UsageRecorder(ctx.db, ctx.clock);
  app.decorate('usage', usage);
  usage.start();
  app.addHook('onClose', async () => usage.stop());

  registerFirstHeaders(app);
  registerRequestGuards(app);
  registerErrorHandler(app);
  registerValidation(app);
  registerNotFound(app);
  registerMetrics(app, ctx);
  await registerOpenApi(app, ctx);
  await registerDocs(app);

  registerHomePage(app);

  app.get('/health', { schema: { hide: true } }, async (request, reply) => {
    try {
      await ctx.db.selectFrom('workspaces').select('id').limit(1).execute();
      return ok(request, { status: 'ok', database: ctx.dialect });
    } catch (error) {
      request.log.error({ err: error }, 'health check failed');
      reply.code(503);
      return {
        success: false,
        error: { code: 'internal_error', message: 'The database does not answer.' },
        request_id: request.id,
      };
    }
  });

  for (const module of modules) {
    for (const page of module.pages ?? []) await app.register(page.plugin, { ctx, prefix: page.prefix });
  }

  await app.register(
    async (api) => {
      api.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () =>
        app.swagger(),
      );
      await api.register(rateLimitPlugin, { config: ctx.config });
      await api.register(authPlugin, { ctx });
      api.addHook('onRequest', api.limits.perKey);
      await api.register(scopePlugin);
      await api.register(idempotencyPlugin, { ctx });
      await api.register(auditTrailPlugin, { ctx });
      api.addHook('onResponse', async (request, reply) => {
        if (request.auth?.actor.type === 'key') usage.record(request.auth, reply.statusCode >= 400);
      });

      registerNotFound(api);
      for (const module of modules) if (module.routes) await api.register(module.routes, { ctx });
    },
    { prefix: '/api/v1' },
  );

  return app;
}
