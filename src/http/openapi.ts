import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import type { ErrorCode } from '../lib/app-error.js';
import { API_VERSION, SERVER_VERSION } from '../version.js';
import { ICON_SVG, WORDMARK_SVG } from './brand.js';
import { errorTableMarkdown } from './error-catalog.js';
import { completeDocument } from './openapi-document.js';

declare module 'fastify' {
  interface FastifySchema {
    /** Error codes the operation answers with beyond those its shape implies (a body, a path id, POST). */
    'x-errors'?: readonly ErrorCode[];
    /** Served without a key although its path names a scoped resource (a signed download link). */
    'x-public'?: boolean;
  }
}

const DESCRIPTION = `**Server: paytrack ${SERVER_VERSION}** (also \`info.x-server-version\`). The version above, ${API_VERSION}, is the
version of this API contract; it changes only when the contract does, whatever the server's release.

Record and collect money a business is owed: customers, payment plans (the \`tracks\`
resource), payments, an append-only ledger and signed webhooks.

Every request sends \`Authorization: Bearer <API_KEY>\`: a \`pt_test_\` key acts on the workspace's test data, a
\`pt_live_\` key on its live data. Each operation names the scope it needs (\`customers:read\`, ...; \`:write\`
includes \`:read\`).

Every response is an envelope, \`{ "success": true, "data": ..., "request_id": "..." }\` or
\`{ "success": false, "error": { "code", "message", "details" }, "request_id": "..." }\`; the request id is also
the \`X-Request-Id\` header. Money is an integer count of the currency's minor unit (kobo, cents), never a float.
Lists are \`{ "items", "has_more", "next_cursor" }\`, newest first; pass \`cursor\` to page on. POST requests take
an \`Idempotency-Key\`. Every keyed response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and
\`X-RateLimit-Reset\`.

## Errors

${errorTableMarkdown()}`;

/** OpenAPI 3.1 generated from the route schemas and completed; must be registered before the routes. */
export async function registerOpenApi(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'paytrack API',
        version: API_VERSION,
        description: DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: ctx.config.publicUrl, description: 'This server (PUBLIC_URL)' }],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'pt_test_… or pt_live_…',
            description: 'An API key; the scopes an operation lists are those the key needs.',
          },
        },
      },
      security: [{ apiKey: [] }],
    },
    transformObject: (generated) => {
      if (!('openapiObject' in generated)) return generated.swaggerObject;
      const document = completeDocument(generated.openapiObject, ctx.registry);
      // The server's release beside the contract's version: an OpenAPI extension, read by name.
      document.info = { ...document.info, 'x-server-version': SERVER_VERSION };
      return document;
    },
  });
}

/**
 * The reference page at /docs, titled and branded paytrack (our wordmark with the server's version in the top bar,
 * our icon): served from the package itself, nothing loaded from elsewhere.
 */
export async function registerDocs(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { validatorUrl: null, deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0 },
    logo: { type: 'image/svg+xml', content: Buffer.from(WORDMARK_SVG), href: '/', target: '_self' },
    theme: {
      title: 'paytrack API',
      favicon: [
        {
          filename: 'favicon.svg',
          rel: 'icon',
          sizes: 'any',
          type: 'image/svg+xml',
          content: Buffer.from(ICON_SVG),
        },
      ],
    },
    staticCSP:
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'",
  });
}
