import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { isCrossSitePost, pageHeaders } from '../../http/html-page.js';
import { pageRateLimit } from '../../http/rate-limit.js';
import {
  alreadyPaidBody,
  checkoutPage,
  noLongerDueBody,
  paidBody,
  payForm,
  RETURN_TITLES,
  returnBody,
} from './checkout.page.js';
import { type CheckoutView, payCheckout, returnFromCheckout, showCheckout } from './checkout.service.js';
import {
  CLOSED_TITLES,
  checkoutAlreadyPaidBody,
  checkoutPaidBody,
  checkoutPayForm,
  closedBody,
  payLinkPage,
  paidBody as payLinkPaidBody,
  returnBody as payLinkReturnBody,
} from './pay-link.page.js';
import {
  type PayLinkCheckoutView,
  payPayLinkCheckout,
  returnFromPayLinkCheckout,
  showPayLinkCheckout,
} from './pay-link-checkout.service.js';
import { answerPaymentPageErrors } from './payment-pages.js';

const CHECKOUT = /^chk_[A-Za-z0-9_-]{22}$/;

/** A page, in the colour of the business behind the checkout when it is known. */
function send(reply: FastifyReply, status: number, title: string, body: string, view?: CheckoutView) {
  return reply
    .code(status)
    .headers(pageHeaders(view?.business.brandColor))
    .send(checkoutPage(title, body, view));
}

/** Also the answer to an address under /checkout that cannot be routed at all (bad percent-encoding). */
export const notFound = (reply: FastifyReply) =>
  send(reply, 404, 'Checkout not found', '<p>This checkout link is not valid.</p>');

const alreadyPaid = (reply: FastifyReply, view: CheckoutView) =>
  send(reply, 200, 'Already paid', alreadyPaidBody(view), view);

const noLongerDue = (reply: FastifyReply, view: CheckoutView) =>
  send(reply, 410, 'No longer due', noLongerDueBody(view), view);

/** A page of a pay link's checkout, in the colour of its business. */
function sendForLink(
  reply: FastifyReply,
  status: number,
  title: string,
  body: string,
  view: PayLinkCheckoutView,
) {
  return reply
    .code(status)
    .headers(pageHeaders(view.business.brandColor))
    .send(payLinkPage(title, body, view));
}

/** A pay link's checkout as it now stands: to pay, paid by it, or closed with its link. */
function linkCheckoutShown(reply: FastifyReply, view: PayLinkCheckoutView) {
  if (view.checkoutState === 'open') {
    return sendForLink(reply, 200, `Pay ${view.business.name}`, checkoutPayForm(view), view);
  }
  if (view.checkoutState === 'paid') {
    return sendForLink(reply, 200, 'Already paid', checkoutAlreadyPaidBody(view), view);
  }
  if (view.state === 'paid') return sendForLink(reply, 200, 'Already paid', payLinkPaidBody(view), view);
  const state = view.state === 'open' ? 'settled' : view.state;
  return sendForLink(reply, 410, CLOSED_TITLES[state], closedBody(view, state), view);
}

/**
 * Test mode's checkout page, standing in for the provider's hosted one: it shows what is due (an obligation's
 * instalment, or the amount chosen on a pay link's page) and a pay button that completes the payment as the
 * provider's notification would. Live checkouts are the provider's pages; their payers come back to `/:id/return`.
 */
export const checkoutPages: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 1024 },
    (_r, _b, done) => done(null, {}),
  );
  await pageRateLimit(app, ctx.config, 'checkout', 30);
  answerPaymentPageErrors(app, 'checkout page', send, notFound);

  app.get<{ Params: { id: string } }>('/:id', { schema: { hide: true } }, async (request, reply) => {
    const view = CHECKOUT.test(request.params.id) ? await showCheckout(ctx, request.params.id) : undefined;
    if (!view) {
      const forLink = CHECKOUT.test(request.params.id)
        ? await showPayLinkCheckout(ctx, request.params.id)
        : undefined;
      return forLink ? linkCheckoutShown(reply, forLink) : notFound(reply);
    }
    if (view.state === 'paid') return alreadyPaid(reply, view);
    if (view.state === 'closed') return noLongerDue(reply, view);
    return send(reply, 200, `Pay ${view.business.name}`, payForm(view), view);
  });

  app.get<{ Params: { id: string } }>('/:id/return', { schema: { hide: true } }, async (request, reply) => {
    const back = CHECKOUT.test(request.params.id)
      ? await returnFromCheckout(ctx, request.params.id)
      : undefined;
    if (!back) {
      const forLink = CHECKOUT.test(request.params.id)
        ? await returnFromPayLinkCheckout(ctx, request.params.id)
        : undefined;
      if (!forLink) return notFound(reply);
      if (forLink.outcome === 'paid' && forLink.view.checkoutState === 'paid') {
        return linkCheckoutShown(reply, forLink.view);
      }
      const title = RETURN_TITLES[forLink.outcome];
      return sendForLink(reply, 200, title, payLinkReturnBody(forLink.view, forLink.outcome), forLink.view);
    }
    const { view, outcome } = back;
    if (outcome === 'paid' && view.state === 'paid') return alreadyPaid(reply, view);
    return send(reply, 200, RETURN_TITLES[outcome], returnBody(view, outcome), view);
  });

  app.post<{ Params: { id: string } }>('/:id', { schema: { hide: true } }, async (request, reply) => {
    if (!CHECKOUT.test(request.params.id)) return notFound(reply);
    if (isCrossSitePost(request.headers, ctx.config.publicUrl)) {
      return send(reply, 403, 'Not paid', '<p>This payment must be made from its own page.</p>');
    }
    const paid = await payCheckout(ctx, request.params.id);
    if (!paid) {
      const forLink = await payPayLinkCheckout(ctx, request.params.id);
      if (!forLink) return notFound(reply);
      if (forLink.handled)
        return sendForLink(reply, 200, 'Paid', checkoutPaidBody(forLink.view), forLink.view);
      return linkCheckoutShown(reply, forLink.view);
    }
    if (paid.handled) return send(reply, 200, 'Paid', paidBody(paid.view), paid.view);
    // Paid or closed meanwhile: the page as it now is.
    const now = (await showCheckout(ctx, request.params.id)) ?? paid.view;
    return paid.state === 'closed' ? noLongerDue(reply, now) : alreadyPaid(reply, now);
  });
};
