import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { IdParams, ListOf, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import {
  Event,
  WebhookDelivery,
  WebhookDeliveryListQuery,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointListQuery,
  WebhookEndpointUpdate,
  WebhookEndpointWithSecret,
} from './webhooks.schemas.js';
import * as service from './webhooks.service.js';

const tags = ['Webhooks'];

export const webhooksRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/webhooks',
    {
      schema: {
        operationId: 'createWebhookEndpoint',
        'x-errors': ['invalid_state'],
        tags,
        summary: 'Create a webhook endpoint',
        description:
          'The response holds the signing secret; it is not shown again. Each mode of a workspace has at most ' +
          'the plan limit of enabled endpoints (`GET /account/subscription`); past it the answer is 409 ' +
          '`invalid_state` with `details.status` `limit_reached`.',
        body: WebhookEndpointCreate,
        response: responses(201, WebhookEndpointWithSecret),
      },
    },
    async (request, reply) => {
      reply.code(201);
      return ok(request, await service.createEndpoint(ctx, requireAuth(request), request.body));
    },
  );

  app.get(
    '/webhooks',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        tags,
        summary: 'List webhook endpoints',
        querystring: WebhookEndpointListQuery,
        response: responses(200, ListOf(WebhookEndpoint)),
      },
    },
    async (request) => ok(request, await service.listEndpoints(ctx, requireAuth(request), request.query)),
  );

  app.get(
    '/webhooks/:id',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        tags,
        summary: 'Get a webhook endpoint',
        params: IdParams,
        response: responses(200, WebhookEndpoint),
      },
    },
    async (request) => ok(request, await service.getEndpoint(ctx, requireAuth(request), request.params.id)),
  );

  app.patch(
    '/webhooks/:id',
    {
      schema: {
        operationId: 'updateWebhookEndpoint',
        'x-errors': ['invalid_state'],
        tags,
        summary: 'Update or re-enable a webhook endpoint',
        params: IdParams,
        body: WebhookEndpointUpdate,
        response: responses(200, WebhookEndpoint),
      },
    },
    async (request) =>
      ok(request, await service.updateEndpoint(ctx, requireAuth(request), request.params.id, request.body)),
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        operationId: 'disableWebhookEndpoint',
        'x-errors': ['invalid_state'],
        tags,
        summary: 'Disable a webhook endpoint',
        description:
          'No further deliveries, retries included. PATCH with `"status": "enabled"` re-enables it.',
        params: IdParams,
        response: responses(200, WebhookEndpoint),
      },
    },
    async (request) =>
      ok(request, await service.disableEndpoint(ctx, requireAuth(request), request.params.id)),
  );

  app.post(
    '/webhooks/:id/test',
    {
      schema: {
        operationId: 'sendTestEvent',
        'x-errors': ['invalid_state'],
        tags,
        summary: 'Send a test event',
        description: 'Queues a `webhook.test` event delivered to this endpoint only.',
        params: IdParams,
        response: responses(202, Event),
      },
    },
    async (request, reply) => {
      reply.code(202);
      return ok(request, await service.sendTestEvent(ctx, requireAuth(request), request.params.id));
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: 'Delivery attempts of an endpoint',
        description: 'One item per attempt, newest first.',
        params: IdParams,
        querystring: WebhookDeliveryListQuery,
        response: responses(200, ListOf(WebhookDelivery)),
      },
    },
    async (request) =>
      ok(request, await service.listDeliveries(ctx, requireAuth(request), request.params.id, request.query)),
  );
};
