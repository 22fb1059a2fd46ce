import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { isCrossSitePost, pageHeaders } from '../../http/html-page.js';
import { pageRateLimit } from '../../http/rate-limit.js';
import { AppError } from '../../lib/app-error.js';
import type { BusinessCard } from '../workspaces/workspaces.service.js';
import { answeredPage, authorizePage, type ClosedPage, closedPage, consentForm } from './consent.page.js';
import {
  answerConsent,
  type ConsentOutcome,
  type ProviderStep,
  returnFromProvider,
  showConsent,
} from './consent.service.js';

/** Requests a minute one address may make to consent pages. */
const PER_IP_PER_MINUTE = 30;
const TOKEN = /^ct_[A-Za-z0-9_-]{43}$/;

/** A page, with the headers that allow its styles (the business's brand colour among them). */
function send(reply: FastifyReply, status: number, html: string, business: BusinessCard | null = null) {
  return reply.code(status).headers(pageHeaders(business?.brandColor)).send(html);
}

function closed(reply: FastifyReply, reason: ClosedPage, business: BusinessCard | null = null) {
  const { status, html } = closedPage(reason, business);
  return send(reply, status, html, business);
}

/** The step with the provider's hosted authorization: a link to it, or why there is none. */
function providerStep(reply: FastifyReply, step: ProviderStep) {
  return send(reply, 200, authorizePage(step.step, step.view, step.url), step.view.business);
}

function answered(reply: FastifyReply, outcome: ConsentOutcome) {
  if (!outcome.done) return closed(reply, outcome.reason, outcome.business);
  if (outcome.status === 'provider') return providerStep(reply, outcome);
  return send(reply, 200, answeredPage(outcome.status, outcome.view), outcome.view.business);
}

/**
 * The answer to an address under /consent that never reaches these pages' routes (percent-encoding that does
 * not decode, a token longer than any parameter): no token we issued looks like that.
 */
export const unknownLink = (reply: FastifyReply) => closed(reply, 'unknown');

/**
 * The payer's consent page at `/consent/<token>`: HTML for every answer (never the API's JSON), its own body
 * parser for forms, strict security headers, a per-address rate limit, and a form token against cross-site
 * posting. It needs no key: the token in the address is the payer's authority, and it works once.
 */
export const consentPages: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 4096 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  await pageRateLimit(app, ctx.config, 'consent', PER_IP_PER_MINUTE);
  app.setErrorHandler((error: Error & { statusCode?: number; rateLimited?: boolean }, request, reply) => {
    if (error.rateLimited) return closed(reply, 'rate_limited');
    // Text no token has (NUL, a lone surrogate) in the path or query, refused before the handler runs.
    if (error instanceof AppError && error.code === 'validation_error') return closed(reply, 'unknown');
    if ((error.statusCode ?? 500) < 500) return closed(reply, 'bad_request');
    request.log.error({ err: error }, 'consent page failed');
    return closed(reply, 'error');
  });
  app.setNotFoundHandler((_request, reply) => closed(reply, 'unknown'));

  app.get<{ Params: { token: string } }>('/:token', { schema: { hide: true } }, async (request, reply) => {
    if (!TOKEN.test(request.params.token)) return closed(reply, 'unknown');
    const shown = await showConsent(ctx, request.params.token);
    if (!shown.open) return closed(reply, shown.reason, shown.business);
    if (shown.open === 'provider') return providerStep(reply, shown);
    return send(reply, 200, consentForm(shown.view, shown.formToken, shown.expiresAt), shown.view.business);
  });

  app.post<{ Params: { token: string }; Body: Record<string, string> | undefined }>(
    '/:token',
    { schema: { hide: true } },
    async (request, reply) => {
      if (!TOKEN.test(request.params.token)) return closed(reply, 'unknown');
      if (isCrossSitePost(request.headers, ctx.config.publicUrl)) return closed(reply, 'forged');
      const body = request.body ?? {};
      const decision = body.decision;
      if ((decision !== 'approve' && decision !== 'decline') || typeof body.form_token !== 'string') {
        return closed(reply, 'bad_request');
      }
      const outcome = await answerConsent(ctx, request.params.token, {
        decision,
        formToken: body.form_token,
        ip: request.ip,
        userAgent:
          typeof request.headers['user-agent'] === 'string'
            ? request.headers['user-agent'].slice(0, 500)
            : null,
        log: request.log,
      });
      return answered(reply, outcome);
    },
  );

  app.get<{ Params: { token: string }; Querystring: { cancelled?: string } }>(
    '/:token/return',
    { schema: { hide: true } },
    async (request, reply) => {
      if (!TOKEN.test(request.params.token)) return closed(reply, 'unknown');
      const cancelled = request.query.cancelled !== undefined;
      return answered(reply, await returnFromProvider(ctx, request.params.token, cancelled));
    },
  );
};
