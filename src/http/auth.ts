import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../context.js';
import { AppError } from '../lib/app-error.js';
import { type AuthContext, authenticate } from '../modules/api-keys/api-keys.service.js';
import { allows, requiredScope } from '../modules/api-keys/scopes.js';
import { INTERNAL_CALL_HEADER, internalCallAuth } from './internal-calls.js';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyContextConfig {
    /** Served without an API key. */
    public?: boolean;
  }
}

const SEND_A_KEY = 'Send an API key as "Authorization: Bearer <API_KEY>".';

/** How many Authorization headers came, counted in the raw list (`headersDistinct` builds every header's list). */
function authorizationHeaders(raw: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 13 && name.toLowerCase() === 'authorization') count++;
  }
  return count;
}

/** The presented key, or the reason there is none that can be used. */
function presentedKey(request: FastifyRequest): { key: string } | { refusal: string } {
  // Node keeps only the first of repeated Authorization headers; a proxy may read another one.
  if (authorizationHeaders(request.raw.rawHeaders) > 1) {
    return { refusal: 'Send exactly one Authorization header.' };
  }
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1] ? { key: match[1] } : { refusal: SEND_A_KEY };
}

/** A failed authentication counts against its address's limit before it is answered 401. */
async function refuse(request: FastifyRequest, reply: FastifyReply, message: string): Promise<never> {
  await request.server.limits.failedAuth(request, reply);
  throw new AppError('unauthorized', message);
}

/**
 * Bearer key -> `request.auth`; every route inside needs one unless marked public. An unknown route asked
 * without any key is left to the not-found answer.
 */
export const authPlugin = fp<{ ctx: AppContext }>(async (app: FastifyInstance, { ctx }) => {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.public) return;
    const internal = internalCallAuth(request.headers[INTERNAL_CALL_HEADER]);
    if (internal) {
      request.auth = internal;
      return;
    }
    if (request.is404 && request.headers.authorization === undefined) return;
    const presented = presentedKey(request);
    if ('refusal' in presented) return refuse(request, reply, presented.refusal);
    const auth = await authenticate(ctx, presented.key);
    if (!auth) return refuse(request, reply, 'The API key is not valid or has been revoked.');
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
  // A person's role is checked once the body is read: a collector may change a customer's notes, nothing else.
  app.addHook('preHandler', async (request) => {
    const refusal = request.auth?.refuses?.({
      method: request.method,
      route: request.routeOptions.url ?? '',
      body: request.body,
    });
    if (refusal) throw new AppError('forbidden', refusal);
  });
});

export function requireAuth(request: { auth: AuthContext | null }): AuthContext {
  if (!request.auth) throw new AppError('unauthorized', SEND_A_KEY);
  return request.auth;
}
