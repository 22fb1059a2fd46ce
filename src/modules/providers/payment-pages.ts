import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../lib/app-error.js';

/** A page answer: its status, title and body, in the look of the page's business when it has one. */
export type SendPage = (reply: FastifyReply, status: number, title: string, body: string) => FastifyReply;

/**
 * How a page that takes money (the checkout page, a pay link's page) answers what never reaches its handlers:
 * the per-address limit, text no id or token has (NUL, a lone surrogate) in the path or query, and failures,
 * each as a page that says nothing was paid. `what` names the page in the log.
 */
export function answerPaymentPageErrors(
  app: FastifyInstance,
  what: string,
  send: SendPage,
  notFound: (reply: FastifyReply) => FastifyReply,
): void {
  app.setErrorHandler((error: Error & { statusCode?: number; rateLimited?: boolean }, request, reply) => {
    if (error.rateLimited) {
      return send(
        reply,
        429,
        'Too many requests',
        '<p>Nothing was paid. Wait a minute, then open the link again.</p>',
      );
    }
    if (error instanceof AppError && error.code === 'validation_error') return notFound(reply);
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, `${what} failed`);
    return send(
      reply,
      Math.min(status, 500),
      'Something went wrong',
      '<p>Nothing was paid. Open the link again.</p>',
    );
  });
  app.setNotFoundHandler((_request, reply) => notFound(reply));
}
