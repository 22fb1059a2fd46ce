import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { IdParams, ListOf, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { PayLink, PayLinkCreate, PayLinkListQuery } from './pay-links.schemas.js';
import * as service from './pay-links.service.js';

const tags = ['Payment plans (tracks)'];

export const payLinksRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/tracks/:id/pay-links',
    {
      schema: {
        operationId: 'createPayLink',
        'x-errors': ['not_found', 'invalid_state'],
        tags,
        summary: 'Create a pay link for a payment plan',
        description:
          "A link to share with the plan's payer (by WhatsApp, say): its page shows the business, what is paid for, the payer's first name and the amount, and pays through the workspace's checkout provider (test mode: the simulator's checkout page). The amount defaults to what is due now (what the plan's open obligations due up to today, in the workspace's time zone, still ask), else the next instalment, else the balance; minAmount below amount lets the payer choose any amount from it up to the balance. The link works until expires_at (default 30 days, at most 90). The url is in this answer only: only its token's hash is stored. The payment is recorded once, on the plan, allocated as any payment, however often the provider reports it; the link then becomes paid (event pay_link.paid). A plan completed or archived is invalid_state; every bad amount or date is a validation_error naming its field. Event pay_link.created.",
        params: IdParams,
        body: PayLinkCreate,
        response: responses(201, PayLink),
      },
    },
    async (request, reply) => {
      // Before the change: an Idempotency-Key keeps the status the reply has when the change commits.
      reply.code(201);
      const link = await service.createPayLink(
        ctx,
        requireAuth(request),
        request.params.id,
        request.body ?? {},
      );
      return ok(request, link);
    },
  );

  app.get(
    '/tracks/:id/pay-links',
    {
      schema: {
        operationId: 'listPayLinks',
        'x-errors': ['not_found'],
        tags,
        summary: "List a payment plan's pay links",
        description:
          'Newest first; status as at now (an active link past expiresAt is expired). Filter: status. The url is never shown again.',
        params: IdParams,
        querystring: PayLinkListQuery,
        response: responses(200, ListOf(PayLink)),
      },
    },
    async (request) =>
      ok(request, await service.listPayLinks(ctx, requireAuth(request), request.params.id, request.query)),
  );

  app.get(
    '/pay-links/:id',
    {
      schema: {
        operationId: 'getPayLink',
        'x-errors': ['not_found'],
        tags,
        summary: 'Get a pay link',
        description:
          'Status as at now (an active link past expiresAt is expired). The url is never shown again.',
        params: IdParams,
        response: responses(200, PayLink),
      },
    },
    async (request) => ok(request, await service.getPayLink(ctx, requireAuth(request), request.params.id)),
  );

  app.delete(
    '/pay-links/:id',
    {
      schema: {
        operationId: 'revokePayLink',
        'x-errors': ['not_found', 'invalid_state'],
        tags,
        summary: 'Revoke a pay link',
        description:
          'An active link is revoked: its page says so (410) and takes nothing from then on. A paid, expired or revoked link is invalid_state. Money a provider reports afterwards for a checkout begun before is still recorded on the plan. Event pay_link.revoked.',
        params: IdParams,
        response: responses(200, PayLink),
      },
    },
    async (request) => ok(request, await service.revokePayLink(ctx, requireAuth(request), request.params.id)),
  );
};
