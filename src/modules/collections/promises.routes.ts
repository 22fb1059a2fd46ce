import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { IdParams, ListOf, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { PromiseCreate, PromiseListQuery, PromiseToPay } from './promises.schemas.js';
import * as service from './promises.service.js';

const tags = ['Payment plans (tracks)'];

export const promisesRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/promises',
    {
      schema: {
        operationId: 'createPromise',
        'x-errors': ['not_found', 'invalid_state'],
        tags,
        summary: 'Record a promise to pay',
        description:
          "A promise to pay amount on a plan (or one open obligation of it, obligationId) by the end of date in the workspace's time zone. While it is open, the schedule's automatic reminders for what it covers are skipped (promise_open) and its automatic attempts blocked (promise_open); reminders sent meanwhile mention it (\"as agreed, ₦20,000.00 by Fri 4 Dec\"). It is kept as soon as payments recorded on the plan since it was made reach its amount (or what it covers is paid off); else it is broken at the start of the day after date: chasing resumes where the schedule's stages are, with one reminder saying the promise was not kept. At most one promise is open per plan: another is invalid_state naming it (details.promiseId). The plan must be active with a balance (else invalid_state); amount at most the balance (and what the obligation still asks); date from today, at most 366 days ahead. source is business (a key, the console) or payer (the customer's page). Event promise.created.",
        body: PromiseCreate,
        response: responses(201, PromiseToPay),
      },
    },
    async (request, reply) => {
      // Before the change: an Idempotency-Key keeps the status the reply has when the change commits.
      reply.code(201);
      const promise = await service.createPromise(ctx, requireAuth(request), request.body);
      return ok(request, promise);
    },
  );

  app.get(
    '/promises',
    {
      schema: {
        operationId: 'listPromises',
        tags,
        summary: 'List promises to pay',
        description: 'Newest first. Filters combine: status, trackId, customerId.',
        querystring: PromiseListQuery,
        response: responses(200, ListOf(PromiseToPay)),
      },
    },
    async (request) => ok(request, await service.listPromises(ctx, requireAuth(request), request.query)),
  );

  app.get(
    '/promises/:id',
    {
      schema: {
        operationId: 'getPromise',
        'x-errors': ['not_found'],
        tags,
        summary: 'Get a promise to pay',
        params: IdParams,
        response: responses(200, PromiseToPay),
      },
    },
    async (request) => ok(request, await service.getPromise(ctx, requireAuth(request), request.params.id)),
  );

  app.post(
    '/promises/:id/cancel',
    {
      schema: {
        operationId: 'cancelPromise',
        'x-errors': ['not_found', 'invalid_state'],
        tags,
        summary: 'Cancel a promise to pay',
        description:
          'An open promise is cancelled: chasing resumes where the schedule is (no reminder of its own). Kept, broken or cancelled promises are invalid_state. Event promise.cancelled.',
        params: IdParams,
        response: responses(200, PromiseToPay),
      },
    },
    async (request) => ok(request, await service.cancelPromise(ctx, requireAuth(request), request.params.id)),
  );
};
