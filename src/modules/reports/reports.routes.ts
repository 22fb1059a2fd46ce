import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import {
  Collections,
  CollectionsQuery,
  Overdue,
  OverdueQuery,
  ReportQuery,
  Summary,
} from './reports.schemas.js';
import * as service from './reports.service.js';

const tags = ['Reports'];

export const reportsRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/reports/summary',
    {
      schema: {
        operationId: 'reportSummary',
        tags,
        summary: 'Summary report',
        description:
          'Customers, plans by status, and per currency: billed and collected in the period [from, to), outstanding and overdue at `to`, collection rate, DSO and what open obligations still owe in the next 30 days. Reads the tenant clock: a test workspace follows its test clock.',
        querystring: ReportQuery,
        response: responses(200, Summary),
      },
    },
    async (request) => ok(request, await service.summary(ctx, requireAuth(request), request.query)),
  );

  app.get(
    '/reports/collections',
    {
      schema: {
        operationId: 'reportCollections',
        tags,
        summary: 'Collections report',
        description:
          'Per currency, the total and count of payments (recorded, not reversed) paid in [from, to), by method and by day, week (from Monday) or month in the workspace time zone.',
        querystring: CollectionsQuery,
        response: responses(200, Collections),
      },
    },
    async (request) => ok(request, await service.collections(ctx, requireAuth(request), request.query)),
  );

  app.get(
    '/reports/overdue',
    {
      schema: {
        operationId: 'reportOverdue',
        tags,
        summary: 'Overdue accounts and ageing',
        description:
          'At `to` (now when absent), per currency: the overdue total aged in buckets 1-30, 31-60, 61-90 and 91+ days past due, and the overdue accounts worst first (largest overdue amount, then oldest due date), paginated with limit and cursor.',
        querystring: OverdueQuery,
        response: responses(200, Overdue),
      },
    },
    async (request) => ok(request, await service.overdue(ctx, requireAuth(request), request.query)),
  );
};
