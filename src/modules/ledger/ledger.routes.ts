import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { ListOf, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { LedgerEntry, LedgerListQuery } from './ledger.schemas.js';
import { listLedger } from './ledger.service.js';

export const ledgerRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/ledger',
    {
      schema: {
        operationId: 'listLedger',
        tags: ['Ledger'],
        summary: 'The workspace ledger',
        description: 'Append-only ledger events, newest first.',
        querystring: LedgerListQuery,
        response: responses(200, ListOf(LedgerEntry)),
      },
    },
    async (request) => ok(request, await listLedger(ctx, requireAuth(request), request.query)),
  );
};
