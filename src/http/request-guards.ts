import type { FastifyInstance } from 'fastify';
import { AppError } from '../lib/app-error.js';
import { sendError } from './errors.js';

/**
 * Answers, in the envelope, what Node or Fastify would otherwise answer bare: a request that arrives while the
 * server is shutting down (503, the connection closed) and an HTTP/1.1 request without a Host header (400).
 * Registered first, so no other hook runs for them.
 */
export function registerRequestGuards(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    if (closing) {
      reply.header('connection', 'close');
      return sendError(
        request,
        reply,
        new AppError(
          'service_unavailable',
          'The server is shutting down and takes no new request. Send it again on a new connection.',
        ),
      );
    }
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      return sendError(
        request,
        reply,
        new AppError(
          'bad_request',
          'The request is not valid HTTP: an HTTP/1.1 request must send a Host header.',
        ),
      );
    }
  });
}
