import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { expected } from './reports.expected.js';
import {
  Collections,
  CollectionsQuery,
  Expected,
  ExpectedQuery,
  Overdue,
  OverdueQuery,
  ReportQuery,
  Summary,
} from './reports.schemas.js';
import * as service from './reports.service.js';

const tags = ['Reports'];

/** What every report says of its figures' exactness. */
const EXACT =
  ' Every money figure is exact: sums of integer minor units, added as integers in the database and checked when read and added. A figure past 9007199254740991 (2^53 − 1), the largest integer a JSON number carries exactly, is never answered rounded: the report is refused with 422 total_too_large. Dates stop at 9999-12-31: a `to` whose date in the workspace time zone is later is a validation_error.';

export const reportsRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/reports/summary',
    {
      schema: {
        operationId: 'reportSummary',
        'x-errors': ['total_too_large'],
        tags,
        summary: 'Summary report',
        description: `Customers, plans by status, and per currency: billed and collected in the period [from, to), outstanding and overdue at \`to\`, collection rate, DSO and what open obligations still owe in the next 30 days. Reads the tenant clock: a test workspace follows its test clock.${EXACT}`,
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
        'x-errors': ['total_too_large'],
        tags,
        summary: 'Collections report',
        description: `Per currency, the total and count of payments (recorded, not reversed) paid in [from, to), by method and by day, week (from Monday) or month in the workspace time zone.${EXACT}`,
        querystring: CollectionsQuery,
        response: responses(200, Collections),
      },
    },
    async (request) => ok(request, await service.collections(ctx, requireAuth(request), request.query)),
  );

  app.get(
    '/reports/expected',
    {
      schema: {
        operationId: 'reportExpected',
        'x-errors': ['total_too_large'],
        tags,
        summary: 'Expected collections',
        description: `Per currency, what open obligations due from due_from through due_to (calendar dates in the workspace time zone, inclusive; today and 30 days by default) still ask, by day, week (from Monday) or month of their due dates: the figures of the summary report's expectedNext30Days, spread over time. Reads the tenant clock.${EXACT}`,
        querystring: ExpectedQuery,
        response: responses(200, Expected),
      },
    },
    async (request) => ok(request, await expected(ctx, requireAuth(request), request.query)),
  );

  app.get(
    '/reports/overdue',
    {
      schema: {
        operationId: 'reportOverdue',
        'x-errors': ['total_too_large'],
        tags,
        summary: 'Overdue accounts and ageing',
        description: `At \`to\` (now when absent), per currency: the overdue total aged in buckets 1-30, 31-60, 61-90 and 91+ days past due, and the overdue accounts worst first (largest overdue amount, then oldest due date; with order=days_overdue the most days overdue, then the largest amount), paginated with limit and cursor. A plan's overdue amount is at most its balance: what its open obligations ask never exceeds it.${EXACT}`,
        querystring: OverdueQuery,
        response: responses(200, Overdue),
      },
    },
    async (request) => ok(request, await service.overdue(ctx, requireAuth(request), request.query)),
  );
};
