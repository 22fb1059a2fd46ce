import type { FastifyInstance } from 'fastify';

/**
 * `GET /` and `HEAD /`: 302 to the console, the people's way in (its sign-in page links to the API reference for
 * developers).
 */
export function registerHomePage(app: FastifyInstance): void {
  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    reply.code(302).header('location', '/console').send(),
  );
}
