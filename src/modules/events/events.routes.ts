import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { IdParams, ListOf, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { Event, EventListQuery, EventResend, EventResent } from './events.schemas.js';
import * as service from './events.service.js';

const tags = ['Events'];

export const eventsRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/events',
    {
      schema: {
        operationId: 'listEvents',
        tags,
        summary: 'List events',
        description:
          'The events of the last 30 days, newest first: what webhooks deliver, kept to read again.',
        querystring: EventListQuery,
        response: responses(200, ListOf(Event)),
      },
    },
    async (request) => ok(request, await service.listEvents(ctx, requireAuth(request), request.query)),
  );

  app.get(
    '/events/:id',
    {
      schema: {
        operationId: 'getEvent',
        tags,
        summary: 'Get an event',
        params: IdParams,
        response: responses(200, Event),
      },
    },
    async (request) => ok(request, await service.getEvent(ctx, requireAuth(request), request.params.id)),
  );

  app.post(
    '/events/:id/resend',
    {
      schema: {
        operationId: 'resendEvent',
        'x-errors': ['invalid_state'],
        tags,
        summary: 'Deliver an event again',
        description:
          'Queues a new delivery of the event to one enabled endpoint (`endpointId`), or to every enabled ' +
          'endpoint subscribed to its type.',
        params: IdParams,
        body: EventResend,
        response: responses(202, EventResent),
      },
    },
    async (request, reply) => {
      reply.code(202);
      return ok(
        request,
        await service.resendEvent(ctx, requireAuth(request), request.params.id, request.body),
      );
    },
  );
};
