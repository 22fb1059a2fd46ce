import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../context.js';
import { AppError } from '../lib/app-error.js';
import { type AuthContext, authenticate } from '../modules/api-keys/api-keys.service.js';
import { allows, requiredScope } from '../modules/api-keys/scopes.js';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyContextConfig {
    /** Served without an API key. */
    public?: boolean;
  }
}

/** Bearer key -> `request.auth`; every route inside needs one unless marked public. */
export const authPlugin = fp<{ ctx: AppContext }>(async (app: FastifyInstance, { ctx }) => {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.public) return;
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1]) {
      throw new AppError('unauthorized', 'Send an API key as "Authorization: Bearer <API_KEY>".');
    }
    const auth = await authenticate(ctx.db, ctx.clock, match[1]);
    if (!auth) throw new AppError('unauthorized', 'The API key is not valid or has been revoked.');
    request.auth = auth;
  });
});

/** The scope of the first path segment; runs after the rate limit so refused requests still count. */
export const scopePlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', async (request) => {
    const auth = request.auth;
    if (!auth) return;
    const scope = requiredScope(request.routeOptions.url ?? '', request.method);
    if (scope && !allows(auth.grant, scope)) {
      throw new AppError('forbidden', `This API key lacks the ${scope} scope.`, { required_scope: scope });
    }
  });
});

export function requireAuth(request: { auth: AuthContext | null }): AuthContext {
  if (!request.auth)
    throw new AppError('unauthorized', 'Send an API key as "Authorization: Bearer <API_KEY>".');
  return request.auth;
}
