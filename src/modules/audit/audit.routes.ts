import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { ListOf, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { AuditEntry, AuditListQuery } from './audit.schemas.js';
import { listAudit } from './audit.service.js';

export const auditRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/audit-log',
    {
      schema: {
        operationId: 'listAuditLog',
        tags: ['Account'],
        summary: 'List the audit trail',
        description:
          'Every change a person (console) or an API key made in this workspace and mode, newest first: who, ' +
          'when, the record, the fields that changed (before and after) and the reason where one was given. ' +
          'Entries are never changed or deleted. Scope `account:read`.',
        querystring: AuditListQuery,
        response: responses(200, ListOf(AuditEntry)),
      },
    },
    async (request) => ok(request, await listAudit(ctx, requireAuth(request), request.query)),
  );
};
