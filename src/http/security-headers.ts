import type { FastifyInstance } from 'fastify';

/** On every API answer: never cached (some carry secrets), never sniffed into another content type. */
export const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const;

export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-content-type-options', SECURITY_HEADERS['x-content-type-options']);
    // The docs page's scripts and styles may be cached; nothing else.
    if (!request.url.startsWith('/docs')) reply.header('cache-control', SECURITY_HEADERS['cache-control']);
    return payload;
  });
}
