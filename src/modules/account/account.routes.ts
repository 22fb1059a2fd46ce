import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { AccountContext, AccountUpdate, Subscription, Usage, UsageQuery } from './account.schemas.js';
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
        description:
          "The workspace's settings, the mode and the API key making the request. Test and live keys of a " +
          'workspace see the same settings.',
        response: responses(200, AccountContext),
      },
    },
    async (request) => ok(request, await service.getAccount(ctx, requireAuth(request))),
  );

  app.patch(
    '/account',
    {
      schema: {
        operationId: 'updateAccount',
        tags,
        summary: "Change the workspace's settings",
        description:
          'Changes the settings given (at least one) of the one workspace that test and live keys share; needs ' +
          '`account:write`. Unknown fields are refused, every bad field is named at once and nothing changes ' +
          'unless all are good. `currency` is the default of plans made afterwards; plans made before keep ' +
          'theirs. `country` is where phone numbers written without a country code are read (customers, ' +
          '`supportPhone`); `supportPhone` is read in the country this request sets, if it sets one. ' +
          'A new `timeZone` applies to what is made afterwards: schedules created from then on, reports, ' +
          'reminder quiet hours and what "today" is. Existing due dates stay, and schedules made before keep ' +
          'the zone they were made with (their `timezone`), so their later instalments do not move. ' +
          'Null clears `supportEmail`, `supportPhone` or `brandColor`. Requests through the same server use the ' +
          'new settings at once, through other servers sharing the database within half a second. Answers the ' +
          'account as `GET /account` does.',
        body: AccountUpdate,
        response: responses(200, AccountContext),
      },
    },
    async (request) => ok(request, await service.updateAccount(ctx, requireAuth(request), request.body)),
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
