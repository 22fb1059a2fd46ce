import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { isCrossSitePost, pageHeaders } from '../../http/html-page.js';
import { pageRateLimit } from '../../http/rate-limit.js';
import {
  CLOSED_TITLES,
  closedBody,
  continueBody,
  paidBody,
  payForm,
  payLinkPage,
  unavailableBody,
} from './pay-link.page.js';
import { type PayLinkView, showPayLink, startPayment } from './pay-link-checkout.service.js';
import { answerPaymentPageErrors } from './payment-pages.js';

/** Requests a minute one address may make to pay link pages. */
const PER_IP_PER_MINUTE = 30;

/** A page, in the colour of the business behind the link when it is known. */
function send(reply: FastifyReply, status: number, title: string, body: string, view?: PayLinkView) {
  return reply
    .code(status)
    .headers(pageHeaders(view?.business.brandColor))
    .send(payLinkPage(title, body, view));
}

/** Also the answer to an address under /pay that cannot be routed at all (bad percent-encoding). */
export const notFound = (reply: FastifyReply) =>
  send(
    reply,
    404,
    'Link not found',
    '<p>This payment link is not valid. Check that you opened the whole link, or ask the business that sent it for a new one.</p>',
  );

/** The page as the link now stands: its form, or paid, or why it takes nothing. */
function shown(reply: FastifyReply, view: PayLinkView) {
  if (view.state === 'open') return send(reply, 200, `Pay ${view.business.name}`, payForm(view), view);
  if (view.state === 'paid') return send(reply, 200, 'Paid', paidBody(view), view);
  return send(reply, 410, CLOSED_TITLES[view.state], closedBody(view, view.state), view);
}

/**
 * A pay link's page at `/pay/<token>`: what is paid for, to whom, and the amount (fixed, or the payer's within
 * the link's bounds); its Pay button (a form post, no script) starts a checkout with the workspace's checkout
 * provider and sends the payer to it: a 303 to the simulator's page on this site in test mode, a link to a real
 * provider's hosted page. HTML for every answer, strict headers (never framed),
 * a per-address rate limit, cross-site posts refused. The token in the address is the payer's only authority.
 */
export const payLinkPages: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  await pageRateLimit(app, ctx.config, 'pay', PER_IP_PER_MINUTE);
  answerPaymentPageErrors(app, 'pay link page', send, notFound);

  app.get<{ Params: { token: string } }>('/:token', { schema: { hide: true } }, async (request, reply) => {
    const view = await showPayLink(ctx, request.params.token);
    return view ? shown(reply, view) : notFound(reply);
  });

  app.post<{ Params: { token: string }; Body: Record<string, string> | undefined }>(
    '/:token',
    { schema: { hide: true } },
    async (request, reply) => {
      if (isCrossSitePost(request.headers, ctx.config.publicUrl)) {
        return send(reply, 403, 'Not paid', '<p>This payment must be made from its own page.</p>');
      }
      const started = await startPayment(ctx, request.params.token, request.body?.amount);
      if (!started) return notFound(reply);
      if (started.done) {
        // The simulator's page is on this site: straight there. A provider's is not, and a browser refuses a form's
        // redirect to another site (form-action 'self'): a link to it.
        if (new URL(started.url).origin === new URL(ctx.config.publicUrl).origin) {
          return reply.code(303).header('location', started.url).send();
        }
        const { view, provider, url, amount } = started;
        return send(reply, 200, `Continue to ${provider}`, continueBody(view, provider, url, amount), view);
      }
      const { view } = started;
      if (started.why === 'amount') {
        return send(
          reply,
          422,
          `Pay ${view.business.name}`,
          payForm(view, { error: started.error, typed: started.typed }),
          view,
        );
      }
      if (started.why === 'unavailable') {
        return send(reply, 503, 'Not available now', unavailableBody(view, started.error), view);
      }
      return shown(reply, view);
    },
  );
};
