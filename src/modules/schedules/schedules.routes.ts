import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { IdParams, ListOf, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import * as obligationsService from './obligations.service.js';
import {
  FeeWaiver,
  Obligation,
  ObligationListItem,
  ObligationListQuery,
  ObligationsQuery,
  Schedule,
  ScheduleActionRequest,
  ScheduleActionResult,
  ScheduleCreate,
  ScheduleListQuery,
} from './schedules.schemas.js';
import * as service from './schedules.service.js';

const tags = ['Collection schedules'];

export const schedulesRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/collection-schedules',
    {
      schema: {
        operationId: 'createSchedule',
        'x-errors': ['not_found', 'invalid_state'],
        tags,
        summary: 'Create a collection schedule',
        description:
          'Generates its initial obligations at once: every one up to end_date, or 12 on or after today when open-ended (the worker keeps it 12 ahead). Due dates are calendar dates in the workspace time zone, never after 9999-12-31. A schedule created with status draft has no obligations until activate. For a plan, what its open obligations ask (across all its schedules) never exceeds its balance: generation stops at what the balance leaves uncovered, and a schedule on a plan whose open obligations already cover its balance is refused with 409 invalid_state (`details.balance`, `details.covered`, `details.schedules`) unless it names the schedule it replaces in replaces_schedule_id. A plan whose amount is lowered trims its open obligations, latest due date first.',
        body: ScheduleCreate,
        response: responses(201, Schedule),
      },
    },
    async (request, reply) => {
      reply.code(201);
      return ok(request, await service.createSchedule(ctx, requireAuth(request), request.body));
    },
  );

  app.get(
    '/collection-schedules',
    {
      schema: {
        operationId: 'listSchedules',
        tags,
        summary: 'List collection schedules',
        querystring: ScheduleListQuery,
        response: responses(200, ListOf(Schedule)),
      },
    },
    async (request) => ok(request, await service.listSchedules(ctx, requireAuth(request), request.query)),
  );

  app.get(
    '/collection-schedules/:id',
    {
      schema: {
        operationId: 'getSchedule',
        tags,
        summary: 'Get a collection schedule',
        params: IdParams,
        response: responses(200, Schedule),
      },
    },
    async (request) => ok(request, await service.getSchedule(ctx, requireAuth(request), request.params.id)),
  );

  app.patch(
    '/collection-schedules/:id',
    {
      schema: {
        operationId: 'actOnSchedule',
        'x-errors': ['invalid_state'],
        tags,
        summary: 'Act on a collection schedule',
        description:
          'One action per request, allowed only from the states it leaves (else 409 invalid_state with details.status and details.action), and/or a new late_fee policy (set first; not on a cancelled schedule); at least one of the two. generate_obligations and sync_payment_plan answer with `changes`; with dry_run they write nothing. A late_fee change emits schedule.updated with the old policy among the previous values.',
        params: IdParams,
        body: ScheduleActionRequest,
        response: responses(200, ScheduleActionResult),
      },
    },
    async (request) =>
      ok(request, await service.actOnSchedule(ctx, requireAuth(request), request.params.id, request.body)),
  );

  app.get(
    '/collection-schedules/:id/obligations',
    {
      schema: {
        operationId: 'listObligations',
        tags,
        summary: 'Obligations of a schedule',
        description:
          'Newest first (the last due date first), each with the payments allocated to it. Statuses are those of now on the workspace clock: an obligation whose due date has ended unpaid is overdue at once, and the status filter matches what the items show. GET /obligations lists them across schedules.',
        params: IdParams,
        querystring: ObligationListQuery,
        response: responses(200, ListOf(Obligation)),
      },
    },
    async (request) =>
      ok(request, await service.listObligations(ctx, requireAuth(request), request.params.id, request.query)),
  );

  app.get(
    '/obligations',
    {
      schema: {
        operationId: 'listAllObligations',
        tags,
        summary: 'Obligations across schedules: who owes what, and when',
        description:
          "Every obligation of the workspace (and the key's mode) across its schedules, ordered by due date then id, ascending: what falls due first comes first. Scope schedules:read. Filters combine: status (the status now on the workspace clock, as the items show it; overdue includes an obligation whose due date has ended unpaid even before the worker records it, and pending or partially_paid then leave it out), due_from and due_to (calendar dates, inclusive; due_from after due_to is a validation_error naming due_from), customer_id (obligations of that customer's plans), track_id, schedule_id. Ids of another workspace or mode find nothing. Each item is the obligation as GET /collection-schedules/{id}/obligations shows it, plus customer_id (the plan's customer, null for a schedule without a plan) and amount_due (amount - amount_paid while open, else 0). Paginated with limit (1-100, default 20) and cursor like every list.",
        querystring: ObligationsQuery,
        response: responses(200, ListOf(ObligationListItem)),
      },
    },
    async (request) =>
      ok(request, await obligationsService.listAllObligations(ctx, requireAuth(request), request.query)),
  );

  app.post(
    '/obligations/:id/waive',
    {
      schema: {
        operationId: 'waiveFee',
        'x-errors': ['not_found', 'invalid_state'],
        tags,
        summary: 'Waive a late fee',
        description:
          "Lets an open late fee (kind fee) go: the fee becomes waived and the plan's amount and balance drop by what it still asked (ledger fee.waived with the reason; events fee.waived and track.updated; a plan left owing nothing is completed). Scope schedules:write. A fee already paid, waived or cancelled: 409 invalid_state (waiving twice is refused); an instalment: 422 validation_error naming id (only fees are waived; a plan's amount is changed with PATCH /tracks/{id}); unknown: 404. A waived fee no longer counts towards the policy's caps.",
        params: IdParams,
        body: FeeWaiver,
        response: responses(200, Obligation),
      },
    },
    async (request) =>
      ok(
        request,
        await obligationsService.waiveObligation(ctx, requireAuth(request), request.params.id, request.body),
      ),
  );
};
