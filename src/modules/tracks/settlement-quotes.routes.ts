import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { IdParams, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { SettlementQuote, SettlementQuoteQuery } from './settlement-quotes.schemas.js';
import { quoteSettlement } from './settlement-quotes.service.js';

export const settlementQuoteRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/tracks/:id/settlement-quote',
    {
      schema: {
        operationId: 'quoteSettlement',
        'x-errors': ['not_found', 'invalid_state'],
        tags: ['Payment plans (tracks)'],
        summary: 'Quote what settles a plan on a day',
        description:
          'The amount that clears an active plan on as_of: its balance less the early-settlement discount of its schedules, with the open fees it includes, valid until the end of that day. The quote is kept: a payment naming it (settlementQuoteId) of exactly its amount completes the plan. A plan not active or with nothing left: 409 invalid_state; as_of before today or more than 366 days ahead: validation_error naming as_of.',
        params: IdParams,
        querystring: SettlementQuoteQuery,
        response: responses(200, SettlementQuote),
      },
    },
    async (request) =>
      ok(request, await quoteSettlement(ctx, requireAuth(request), request.params.id, request.query)),
  );
};
