import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { sendPage } from './console.layout.js';
import { type ConsoleForm, type Visit, visitIn } from './console.visit.js';
import { paymentPage, reverse } from './payment.page.js';
import { listPage } from './payments.list.js';
import { record, recordPage } from './payments.new.js';
import { backTo, one, paymentHref } from './plans.parts.js';

/**
 * Payments: the list with its filters, a payment's page (its allocations, and the reversal form for those who may
 * reverse: a reason and a confirmation, both required), and the form that records a payment on a plan. Through
 * the API, each with the form's idempotency key, so a form sent twice records once.
 */

const refusedPage = (reply: FastifyReply, visit: Visit, text: string, back = '/console/payments') =>
  sendPage(
    reply,
    visit,
    { title: 'Not allowed', section: 'payments', body: backTo(text, back, 'Back') },
    403,
  );

const RECORD_REFUSED = 'A viewer can only look; ask an owner, admin or collector.';

export function paymentsPages(app: FastifyInstance, _ctx: AppContext) {
  app.get('/payments', { schema: { hide: true } }, async (request, reply) =>
    listPage(reply, visitIn(request), (request.query ?? {}) as Record<string, unknown>),
  );

  app.get('/payments/new', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('record_payment')) return refusedPage(reply, visit, RECORD_REFUSED);
    const trackId = one((request.query as Record<string, unknown>).track_id);
    return recordPage(reply, visit, trackId ? { track_id: trackId } : {});
  });

  app.post<{ Body: ConsoleForm }>('/payments', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('record_payment')) return refusedPage(reply, visit, RECORD_REFUSED);
    return record(reply, visit, request.body ?? {});
  });

  app.get<{ Params: { id: string } }>('/payments/:id', { schema: { hide: true } }, async (request, reply) =>
    paymentPage(reply, visitIn(request), request.params.id, {
      done: one((request.query as Record<string, unknown>).done),
    }),
  );

  app.post<{ Params: { id: string }; Body: ConsoleForm }>(
    '/payments/:id/reverse',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      if (!visit.can('reverse_payment'))
        return refusedPage(
          reply,
          visit,
          'Only owners and admins reverse payments.',
          paymentHref(request.params.id),
        );
      return reverse(reply, visit, request.params.id, request.body ?? {});
    },
  );
}
