import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { AccountContext, Subscription, Usage, UsageQuery } from './account.schemas.js';
import * as service from './account.service.js';

const tags = ['Account'];

export const accountRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/account',
    {
      schema: {
        operationId: 'getAccount',
        tags,
        summary: 'The account context',
        description: 'The workspace, the mode and the API key making the request.',
        response: responses(200, AccountContext),
      },
    },
    async (request) => ok(request, await service.getAccount(ctx, requireAuth(request))),
  );

  app.get(
    '/account/usage',
    {
      schema: {
        operationId: 'getUsage',
        tags,
        summary: 'API usage',
        description:
          'Requests and errors of this workspace in the mode of the calling key, per UTC day and per key. ' +
          'A request is counted after its response is sent: the request reading usage is not in its own figures.',
        querystring: UsageQuery,
        response: responses(200, Usage),
      },
    },
    async (request) =>
      ok(request, await service.getUsage(ctx, app.usage, requireAuth(request), request.query)),
  );

  app.get(
    '/account/subscription',
    {
      schema: {
        operationId: 'getSubscription',
        tags,
        summary: 'The subscription access model',
        description: "The workspace's plan, the per-key rate limit in force and the plans on offer.",
        response: responses(200, Subscription),
      },
    },
    async (request) => ok(request, service.getSubscription(ctx, requireAuth(request))),
  );
};
