import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { IdParams, ListOf, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { Attempt, AttemptListQuery } from './attempts.schemas.js';
import * as service from './attempts.service.js';

const tags = ['Collection attempts'];

export const attemptsRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/collection-attempts',
    {
      schema: {
        operationId: 'listAttempts',
        tags,
        summary: 'List collection attempts',
        querystring: AttemptListQuery,
        response: responses(200, ListOf(Attempt)),
      },
    },
    async (request) => ok(request, await service.listAttempts(ctx, requireAuth(request), request.query)),
  );

  app.get(
    '/collection-attempts/:id',
    {
      schema: {
        operationId: 'getAttempt',
        tags,
        summary: 'Get a collection attempt',
        params: IdParams,
        response: responses(200, Attempt),
      },
    },
    async (request) => ok(request, await service.getAttempt(ctx, requireAuth(request), request.params.id)),
  );
};
