import type { FastifyInstance, HTTPMethods } from 'fastify';
import { AppError } from '../lib/app-error.js';
import { sendError } from './errors.js';

const METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * 405 when the path exists under another method, else 404, both in the envelope. Registered at the root and
 * again under /api/v1, where the scope's hooks run first: a keyed request is authenticated, rate-limited and
 * counted like any other.
 */
export function registerNotFound(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(
        request,
        reply,
        new AppError(
          'method_not_allowed',
          `${request.method} is not allowed here; use ${allowed.join(', ')}.`,
          {
            allowed,
          },
        ),
      );
    }
    return sendError(request, reply, new AppError('route_not_found', `No route ${request.method} ${path}.`));
  });
}
