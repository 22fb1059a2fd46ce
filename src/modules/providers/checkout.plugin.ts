import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { escapeHtml, isCrossSitePost, PAGE_HEADERS, page } from '../../http/html-page.js';
import { pageRateLimit } from '../../http/rate-limit.js';
import { AppError } from '../../lib/app-error.js';
import { dateInWords } from '../../lib/calendar.js';
import { formatMoney } from '../../lib/money.js';
import { payCheckout, showCheckout } from './checkout.service.js';

const CHECKOUT = /^chk_[A-Za-z0-9_-]{22}$/;

function send(reply: FastifyReply, status: number, title: string, body: string) {
  return reply
    .code(status)
    .headers(PAGE_HEADERS)
    .send(page(title, `<h1>${escapeHtml(title)}</h1>${body}`));
}

/** Also the answer to an address under /checkout that cannot be routed at all (bad percent-encoding). */
export const notFound = (reply: FastifyReply) =>
  send(reply, 404, 'Checkout not found', '<p>This checkout link is not valid.</p>');

const alreadyPaid = (reply: FastifyReply, business: string) =>
  send(reply, 200, 'Already paid', `<p>This payment to ${escapeHtml(business)} is done.</p>`);

const noLongerDue = (reply: FastifyReply, business: string) =>
  send(
    reply,
    410,
    'No longer due',
    `<p>${escapeHtml(business)} no longer asks for this payment, so it cannot be paid here and nothing was paid. Contact them if you think you owe it.</p>`,
  );

/**
 * Test mode's checkout page, standing in for the provider's hosted one: it shows what is due and a pay button
 * that completes the payment as the provider's notification would. Live checkouts are the provider's pages.
 */
export const checkoutPages: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 1024 },
    (_r, _b, done) => done(null, {}),
  );
  await pageRateLimit(app, ctx.config, 'checkout', 30);
  app.setErrorHandler((error: Error & { statusCode?: number; rateLimited?: boolean }, request, reply) => {
    if (error.rateLimited) {
      return send(
        reply,
        429,
        'Too many requests',
        '<p>Nothing was paid. Wait a minute, then open the link again.</p>',
      );
    }
    // Text no checkout id has (NUL, a lone surrogate) in the path or query, refused before the handler runs.
    if (error instanceof AppError && error.code === 'validation_error') return notFound(reply);
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, 'checkout page failed');
    return send(
      reply,
      Math.min(status, 500),
      'Something went wrong',
      '<p>Nothing was paid. Open the link again.</p>',
    );
  });
  app.setNotFoundHandler((_request, reply) => notFound(reply));

  app.get<{ Params: { id: string } }>('/:id', { schema: { hide: true } }, async (request, reply) => {
    const view = CHECKOUT.test(request.params.id) ? await showCheckout(ctx, request.params.id) : undefined;
    if (!view) return notFound(reply);
    if (view.state === 'paid') return alreadyPaid(reply, view.business);
    if (view.state === 'closed') return noLongerDue(reply, view.business);
    return send(
      reply,
      200,
      `Pay ${view.business}`,
      `<p class="note">Test mode: no money moves.</p>
<dl><dt>Amount</dt><dd>${escapeHtml(formatMoney(view.amount, view.currency))}</dd><dt>Due</dt><dd>${escapeHtml(dateInWords(view.dueDate))}</dd></dl>
<form method="post"><div class="actions"><button class="approve" type="submit">Pay ${escapeHtml(formatMoney(view.amount, view.currency))}</button></div></form>`,
    );
  });

  app.post<{ Params: { id: string } }>('/:id', { schema: { hide: true } }, async (request, reply) => {
    if (!CHECKOUT.test(request.params.id)) return notFound(reply);
    if (isCrossSitePost(request.headers, ctx.config.publicUrl)) {
      return send(reply, 403, 'Not paid', '<p>This payment must be made from its own page.</p>');
    }
    const paid = await payCheckout(ctx, request.params.id);
    if (!paid) return notFound(reply);
    if (paid.handled) return send(reply, 200, 'Paid', '<p>Thank you: the payment is recorded.</p>');
    if (paid.state === 'closed') {
      const view = await showCheckout(ctx, request.params.id);
      return noLongerDue(reply, view?.business ?? 'The business');
    }
    return send(reply, 200, 'Already paid', '<p>This payment was made before.</p>');
  });
};
