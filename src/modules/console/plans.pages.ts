import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { sendPage } from './console.layout.js';
import { type ConsoleForm, type Visit, visitIn } from './console.visit.js';
import { planPage } from './plan.page.js';
import { planCollectionsPages } from './plans.collections-pages.js';
import { listPage } from './plans.list.js';
import { createPlan, newPlanPage } from './plans.new.js';
import { backTo, one, planHref } from './plans.parts.js';
import { cancelPromise, recordPromise } from './plans.promises.js';
import { actOnSchedule, addSchedule } from './plans.schedules.js';

/**
 * Plans: the list (all, overdue, active, completed, archived), a plan's page with its schedules, obligations and
 * payments, the schedule actions (re-sync and generation shown as a dry run first, cancel confirmed first), and
 * the form that creates a plan with its schedule. Everything is read and changed through the API.
 */

const refusedPage = (reply: FastifyReply, visit: Visit, text: string, back = '/console/plans') =>
  sendPage(reply, visit, { title: 'Not allowed', section: 'plans', body: backTo(text, back, 'Back') }, 403);

const EDIT_REFUSED = 'Only owners and admins create plans and change schedules.';
const PROMISE_REFUSED = 'A viewer can only look; ask an owner, admin or collector.';

export function plansPages(app: FastifyInstance, _ctx: AppContext) {
  app.get('/plans', { schema: { hide: true } }, async (request, reply) =>
    listPage(reply, visitIn(request), (request.query ?? {}) as Record<string, unknown>),
  );

  app.get('/plans/new', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('edit_records')) return refusedPage(reply, visit, EDIT_REFUSED);
    const customerId = one((request.query as Record<string, unknown>).customer_id);
    return newPlanPage(reply, visit, customerId ? { customer_id: customerId, customer_fixed: 'yes' } : {});
  });

  app.post<{ Body: ConsoleForm }>('/plans', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('edit_records')) return refusedPage(reply, visit, EDIT_REFUSED);
    return createPlan(reply, visit, request.body ?? {});
  });

  app.get<{ Params: { id: string } }>('/plans/:id', { schema: { hide: true } }, async (request, reply) => {
    const query = (request.query ?? {}) as Record<string, unknown>;
    return planPage(reply, visitIn(request), request.params.id, {
      done: one(query.done),
      cursor: one(query.cursor),
    });
  });

  app.post<{ Params: { id: string }; Body: ConsoleForm }>(
    '/plans/:id/schedules',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      if (!visit.can('edit_records'))
        return refusedPage(reply, visit, EDIT_REFUSED, planHref(request.params.id));
      return addSchedule(reply, visit, request.params.id, request.body ?? {});
    },
  );

  app.post<{ Params: { id: string; scheduleId: string }; Body: ConsoleForm }>(
    '/plans/:id/schedules/:scheduleId',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      const { id, scheduleId } = request.params;
      if (!visit.can('edit_records')) return refusedPage(reply, visit, EDIT_REFUSED, planHref(id));
      return actOnSchedule(reply, visit, id, scheduleId, request.body ?? {});
    },
  );

  app.post<{ Params: { id: string }; Body: ConsoleForm }>(
    '/plans/:id/promises',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      if (!visit.can('record_payment'))
        return refusedPage(reply, visit, PROMISE_REFUSED, planHref(request.params.id));
      return recordPromise(reply, visit, request.params.id, request.body ?? {});
    },
  );

  app.post<{ Params: { id: string; promiseId: string }; Body: ConsoleForm }>(
    '/plans/:id/promises/:promiseId/cancel',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      const { id, promiseId } = request.params;
      if (!visit.can('record_payment')) return refusedPage(reply, visit, PROMISE_REFUSED, planHref(id));
      return cancelPromise(reply, visit, id, promiseId, request.body ?? {});
    },
  );

  planCollectionsPages(app);
}
