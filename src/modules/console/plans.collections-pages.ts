import type { FastifyInstance, FastifyReply } from 'fastify';
import { sendPage } from './console.layout.js';
import { type ConsoleForm, type Visit, visitIn } from './console.visit.js';
import { openDispute, resolveDispute, resolvePage } from './plans.disputes.js';
import { waiveFee, waivePage } from './plans.fees.js';
import { backTo, one, planHref } from './plans.parts.js';
import { payQuote, quotePage } from './plans.settlement.js';
import { reverseWriteOff, writeOff } from './plans.write-off.js';

/**
 * The collections workflow on a plan's page: disputes (a collector opens one, an owner or admin rejects or accepts
 * it), write-offs and their reversal and late-fee waivers (owners and admins: they give money up), and the
 * settlement quote with the payment that settles the plan (whoever records payments).
 */

const refusedPage = (reply: FastifyReply, visit: Visit, text: string, id: string) =>
  sendPage(
    reply,
    visit,
    { title: 'Not allowed', section: 'plans', body: backTo(text, planHref(id), 'Back to the plan') },
    403,
  );

const CHASE_REFUSED = 'A viewer can only look; ask an owner, admin or collector.';
const GIVE_UP_REFUSED =
  'Only owners and admins resolve disputes, write off and waive fees: each gives money up.';

type PlanRoute = { Params: { id: string }; Body: ConsoleForm };

export function planCollectionsPages(app: FastifyInstance) {
  const hide = { schema: { hide: true } };

  app.post<PlanRoute>('/plans/:id/disputes', hide, async (request, reply) => {
    const visit = visitIn(request);
    const { id } = request.params;
    if (!visit.can('record_payment')) return refusedPage(reply, visit, CHASE_REFUSED, id);
    return openDispute(reply, visit, id, request.body ?? {});
  });

  app.get<{ Params: { id: string; disputeId: string } }>(
    '/plans/:id/disputes/:disputeId',
    hide,
    async (request, reply) => {
      const visit = visitIn(request);
      const { id, disputeId } = request.params;
      if (!visit.can('edit_records')) return refusedPage(reply, visit, GIVE_UP_REFUSED, id);
      return resolvePage(reply, visit, id, disputeId);
    },
  );

  app.post<{ Params: { id: string; disputeId: string }; Body: ConsoleForm }>(
    '/plans/:id/disputes/:disputeId',
    hide,
    async (request, reply) => {
      const visit = visitIn(request);
      const { id, disputeId } = request.params;
      if (!visit.can('edit_records')) return refusedPage(reply, visit, GIVE_UP_REFUSED, id);
      return resolveDispute(reply, visit, id, disputeId, request.body ?? {});
    },
  );

  app.post<PlanRoute>('/plans/:id/write-off', hide, async (request, reply) => {
    const visit = visitIn(request);
    const { id } = request.params;
    if (!visit.can('edit_records')) return refusedPage(reply, visit, GIVE_UP_REFUSED, id);
    return writeOff(reply, visit, id, request.body ?? {});
  });

  app.post<PlanRoute>('/plans/:id/write-off/reverse', hide, async (request, reply) => {
    const visit = visitIn(request);
    const { id } = request.params;
    if (!visit.can('edit_records')) return refusedPage(reply, visit, GIVE_UP_REFUSED, id);
    return reverseWriteOff(reply, visit, id, request.body ?? {});
  });

  app.get<{ Params: { id: string; obligationId: string } }>(
    '/plans/:id/obligations/:obligationId/waive',
    hide,
    async (request, reply) => {
      const visit = visitIn(request);
      const { id, obligationId } = request.params;
      if (!visit.can('edit_records')) return refusedPage(reply, visit, GIVE_UP_REFUSED, id);
      return waivePage(reply, visit, id, obligationId);
    },
  );

  app.post<{ Params: { id: string; obligationId: string }; Body: ConsoleForm }>(
    '/plans/:id/obligations/:obligationId/waive',
    hide,
    async (request, reply) => {
      const visit = visitIn(request);
      const { id, obligationId } = request.params;
      if (!visit.can('edit_records')) return refusedPage(reply, visit, GIVE_UP_REFUSED, id);
      return waiveFee(reply, visit, id, obligationId, request.body ?? {});
    },
  );

  app.get<{ Params: { id: string } }>('/plans/:id/settlement-quote', hide, async (request, reply) =>
    quotePage(
      reply,
      visitIn(request),
      request.params.id,
      one((request.query as Record<string, unknown>).as_of),
    ),
  );

  app.post<PlanRoute>('/plans/:id/settlement-quote', hide, async (request, reply) => {
    const visit = visitIn(request);
    const { id } = request.params;
    if (!visit.can('record_payment')) return refusedPage(reply, visit, CHASE_REFUSED, id);
    return payQuote(reply, visit, id, request.body ?? {});
  });
}
