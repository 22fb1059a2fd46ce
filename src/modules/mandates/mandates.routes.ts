import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { IdParams, ListOf, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { Mandate, MandateCreate, MandateListQuery, MandateRevoke } from './mandates.schemas.js';
import * as service from './mandates.service.js';

const tags = ['Payment mandates'];

export const mandatesRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/payment-mandates',
    {
      schema: {
        operationId: 'createMandate',
        'x-errors': ['not_found', 'invalid_state'],
        tags,
        summary: 'Create a payment mandate',
        description:
          "Records a pending mandate and answers with its one-time consent_url (24 hours), the page where the payer approves or declines. Nothing is debited until the payer approves, and in live mode until the provider has approved automatic debit for the workspace. A schedule has at most one active mandate: when this one becomes active, the schedule's mandate active until then becomes replaced (event mandate.replaced).",
        body: MandateCreate,
        response: responses(201, Mandate),
      },
    },
    async (request, reply) => {
      reply.code(201);
      return ok(request, await service.createMandate(ctx, requireAuth(request), request.body));
    },
  );

  app.get(
    '/payment-mandates',
    {
      schema: {
        operationId: 'listMandates',
        tags,
        summary: 'List payment mandates',
        querystring: MandateListQuery,
        response: responses(200, ListOf(Mandate)),
      },
    },
    async (request) => ok(request, await service.listMandates(ctx, requireAuth(request), request.query)),
  );

  app.get(
    '/payment-mandates/:id',
    {
      schema: {
        operationId: 'getMandate',
        tags,
        summary: 'Get a payment mandate',
        params: IdParams,
        response: responses(200, Mandate),
      },
    },
    async (request) => ok(request, await service.getMandate(ctx, requireAuth(request), request.params.id)),
  );

  app.post(
    '/payment-mandates/:id/revoke',
    {
      schema: {
        operationId: 'revokeMandate',
        'x-errors': ['invalid_state'],
        tags,
        summary: 'Revoke a payment mandate',
        description:
          "A pending or active mandate is revoked; no collection runs on it again. Revoking a schedule's active mandate stops every future attempt of the schedule, those already waiting included: they stay blocked (no_active_mandate) until a new mandate for the schedule is approved. Anything else (replaced, revoked, failed, expired) is invalid_state.",
        params: IdParams,
        body: MandateRevoke,
        response: responses(200, Mandate),
      },
    },
    async (request) =>
      ok(
        request,
        await service.revokeMandate(ctx, requireAuth(request), request.params.id, request.body ?? {}),
      ),
  );
};
