import type { FastifyInstance, FastifyReply } from 'fastify';

/** On every API answer: never cached (some carry secrets), never sniffed into another content type. */
export const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const;

/** The API reference's assets and the console's scripts (their addresses carry their version) may be kept. */
const CACHEABLE = /^\/(docs(\/|$|\?)|console\/assets\/)/;

/** Sets the security headers on an answer to `url`. */
export function applySecurityHeaders(reply: FastifyReply, url: string): void {
  reply.header('x-content-type-options', SECURITY_HEADERS['x-content-type-options']);
  if (!CACHEABLE.test(url)) reply.header('cache-control', SECURITY_HEADERS['cache-control']);
}

/**
 * Every answer's first headers: its request id and the security headers, set as the request arrives (so errors
 * and the not-found answer carry them too); a route may still set its own cache-control.
 */
export function registerFirstHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    applySecurityHeaders(reply, request.url);
  });
}
