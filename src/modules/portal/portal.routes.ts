import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { IdParams, ListOf, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { PortalLink, PortalLinkCreate, PortalLinkListQuery } from './portal.schemas.js';
import * as service from './portal.service.js';

const tags = ['Customers'];

export const portalRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/customers/:id/portal-links',
    {
      schema: {
        operationId: 'createPortalLink',
        'x-errors': ['not_found', 'invalid_state'],
        tags,
        summary: "Create a link to the customer's page",
        description:
          "A link (`PUBLIC_URL/c/<token>`) to the customer's own page, with no login, phone first and without JavaScript: their plans with balances, obligations (paid, due, overdue), payments with receipts, the statement (view and PDF), pay now for what is due, and their mandates, which they can revoke (recorded as the payer's revocation). The token is unguessable and only its hash is kept, so `url` is in this answer alone. It works until `expires_at` unless revoked first (DELETE /portal-links/{id}). With `send`, a reminder sends it to the customer on that channel.",
        params: IdParams,
        body: PortalLinkCreate,
        response: responses(201, PortalLink),
      },
    },
    async (request, reply) => {
      reply.code(201);
      return ok(
        request,
        await service.createPortalLink(ctx, requireAuth(request), request.params.id, request.body ?? {}),
      );
    },
  );

  app.get(
    '/customers/:id/portal-links',
    {
      schema: {
        operationId: 'listPortalLinks',
        'x-errors': ['not_found'],
        tags,
        summary: "List the links to a customer's page",
        params: IdParams,
        querystring: PortalLinkListQuery,
        response: responses(200, ListOf(PortalLink)),
      },
    },
    async (request) =>
      ok(request, await service.listPortalLinks(ctx, requireAuth(request), request.params.id, request.query)),
  );

  app.delete(
    '/portal-links/:id',
    {
      schema: {
        operationId: 'revokePortalLink',
        'x-errors': ['not_found', 'invalid_state'],
        tags,
        summary: "Revoke a link to a customer's page",
        description:
          'The page answers at once that the link was withdrawn, and changes nothing. Revoking twice is invalid_state.',
        params: IdParams,
        response: responses(200, PortalLink),
      },
    },
    async (request) =>
      ok(request, await service.revokePortalLink(ctx, requireAuth(request), request.params.id)),
  );
};
