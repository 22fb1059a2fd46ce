import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { page, pageHeaders } from '../../http/html-page.js';
import { pageRateLimit } from '../../http/rate-limit.js';
import { AppError } from '../../lib/app-error.js';
import { receiptUrl } from '../../lib/receipt-codes.js';
import { receiptPage, unknownReceiptPage } from './receipt.page.js';
import { receiptPdf } from './receipt.pdf.js';
import { receiptByCode } from './receipts.service.js';

/** Lookups a minute one address may make: enough for people, far too few to guess a code. */
const PER_IP_PER_MINUTE = 30;

const simplePage = (reply: FastifyReply, status: number, title: string, text: string) =>
  reply
    .code(status)
    .headers(pageHeaders(null))
    .send(page(title, `<h1>${title}</h1><p>${text}</p>`));

/** Also the answer to an address under /r that cannot be routed at all (bad percent-encoding). */
export const unknownReceipt = (reply: FastifyReply) =>
  reply.code(404).headers(pageHeaders(null)).send(unknownReceiptPage());

/**
 * A receipt's public page at `/r/<code>`: anyone holding the code printed on a receipt can check it, with no
 * key. The code reveals that receipt only; lookups are limited per address.
 */
export const receiptPages: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  await pageRateLimit(app, ctx.config, 'receipt', PER_IP_PER_MINUTE);
  app.setErrorHandler((error: Error & { statusCode?: number; rateLimited?: boolean }, request, reply) => {
    if (error.rateLimited) {
      return simplePage(reply, 429, 'Too many requests', 'Wait a minute, then open the receipt again.');
    }
    if (error instanceof AppError && error.code === 'validation_error') return unknownReceipt(reply);
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, 'receipt page failed');
    return simplePage(reply, Math.min(status, 500), 'Something went wrong', 'Open the receipt again.');
  });
  app.setNotFoundHandler((_request, reply) => unknownReceipt(reply));

  app.get<{ Params: { code: string } }>('/:code', { schema: { hide: true } }, async (request, reply) => {
    const view = await receiptByCode(ctx, request.params.code);
    if (!view) return unknownReceipt(reply);
    return reply.code(200).headers(pageHeaders(view.business.brandColor)).send(receiptPage(view));
  });

  app.get<{ Params: { code: string } }>('/:code/pdf', { schema: { hide: true } }, async (request, reply) => {
    const view = await receiptByCode(ctx, request.params.code);
    if (!view) return unknownReceipt(reply);
    return reply
      .code(200)
      .headers({ ...pageHeaders(null), 'content-type': 'application/pdf' })
      .header('content-disposition', `attachment; filename="receipt-${view.number}.pdf"`)
      .send(receiptPdf(view, receiptUrl(view.linkCode)));
  });
};
