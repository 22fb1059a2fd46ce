import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';

/** OpenAPI 3.1 generated from the route schemas; must be registered before the routes. */
export async function registerOpenApi(app: FastifyInstance, config: Readonly<Config>): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'paytrack API',
        version: '1.0.0',
        description:
          'Record and collect money a business is owed. Every response uses the envelope ' +
          '`{ success, data | error, request_id }`. Money is an integer count of the currency minor unit. ' +
          'Lists return `{ items, has_more, next_cursor }`, newest first; pass `cursor` to page on. ' +
          'POST requests accept an `Idempotency-Key` header (kept 24 hours).',
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'pt_test_… or pt_live_…' },
        },
      },
      security: [{ apiKey: [] }],
    },
    hideUntagged: false,
  });
}

export async function registerDocs(app: FastifyInstance): Promise<void> {
  await app.register(scalar, {
    routePrefix: '/docs',
    configuration: { url: '/api/v1/openapi.json', title: 'paytrack API' },
    hooks: {},
  });
}
