import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { IdParams, ListOf, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { LedgerEntry, LedgerListQuery } from '../ledger/ledger.schemas.js';
import { Payment, TrackPaymentListQuery } from '../payments/payments.schemas.js';
import { settlementQuoteRoutes } from './settlement-quotes.routes.js';
import { Track, TrackCreate, TrackListQuery, TrackUpdate } from './tracks.schemas.js';
import * as service from './tracks.service.js';

const tags = ['Payment plans (tracks)'];

export const tracksRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/tracks',
    {
      schema: {
        operationId: 'createTrack',
        'x-errors': ['not_found', 'invalid_state'],
        tags,
        summary: 'Create a payment plan',
        description:
          'The balance starts at the amount; status is active. The currency defaults to the workspace one.',
        body: TrackCreate,
        response: responses(201, Track),
      },
    },
    async (request, reply) => {
      reply.code(201);
      return ok(request, await service.createTrack(ctx, requireAuth(request), request.body));
    },
  );

  app.get(
    '/tracks',
    {
      schema: {
        operationId: 'listTracks',
        tags,
        summary: 'List payment plans',
        description:
          'Newest first. Filters combine: customerId, status, and overdue (true: plans with money overdue now, by the definition of GET /reports/overdue: an obligation past its due date and not fully paid, or an active plan whose dueDate has passed with a balance left; false: the others).',
        querystring: TrackListQuery,
        response: responses(200, ListOf(Track)),
      },
    },
    async (request) => ok(request, await service.listTracks(ctx, requireAuth(request), request.query)),
  );

  app.get(
    '/tracks/:id',
    {
      schema: {
        operationId: 'getTrack',
        tags,
        summary: 'Get a payment plan',
        params: IdParams,
        response: responses(200, Track),
      },
    },
    async (request) => ok(request, await service.getTrack(ctx, requireAuth(request), request.params.id)),
  );

  app.patch(
    '/tracks/:id',
    {
      schema: {
        operationId: 'updateTrack',
        'x-errors': ['invalid_state'],
        tags,
        summary: 'Update a payment plan',
        params: IdParams,
        body: TrackUpdate,
        response: responses(200, Track),
      },
    },
    async (request) =>
      ok(request, await service.updateTrack(ctx, requireAuth(request), request.params.id, request.body)),
  );

  app.delete(
    '/tracks/:id',
    {
      schema: {
        operationId: 'archiveTrack',
        'x-errors': ['invalid_state'],
        tags,
        summary: 'Archive a payment plan',
        params: IdParams,
        response: responses(200, Track),
      },
    },
    async (request) => ok(request, await service.archiveTrack(ctx, requireAuth(request), request.params.id)),
  );

  app.get(
    '/tracks/:id/payments',
    {
      schema: {
        operationId: 'listTrackPayments',
        tags,
        summary: 'Payments of a plan',
        params: IdParams,
        querystring: TrackPaymentListQuery,
        response: responses(200, ListOf(Payment)),
      },
    },
    async (request) =>
      ok(
        request,
        await service.listTrackPayments(ctx, requireAuth(request), request.params.id, request.query),
      ),
  );

  app.get(
    '/tracks/:id/ledger',
    {
      schema: {
        operationId: 'listTrackLedger',
        tags,
        summary: 'Ledger of a plan',
        description: 'The sum of the amounts of a plan entries equals its balance.',
        params: IdParams,
        querystring: LedgerListQuery,
        response: responses(200, ListOf(LedgerEntry)),
      },
    },
    async (request) =>
      ok(request, await service.listTrackLedger(ctx, requireAuth(request), request.params.id, request.query)),
  );

  await app.register(settlementQuoteRoutes, { ctx });
};
