import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { IdParams, ListOf, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { Dispute, DisputeCreate, DisputeListQuery, DisputeResolve } from './disputes.schemas.js';
import * as service from './disputes.service.js';

const tags = ['Payment plans (tracks)'];

export const disputesRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/disputes',
    {
      schema: {
        operationId: 'createDispute',
        'x-errors': ['not_found', 'invalid_state'],
        tags,
        summary: 'Open a dispute',
        description:
          'A customer disputes a plan, an obligation or a payment (exactly one of trackId, obligationId, paymentId; else a validation_error naming the field). While it is open, every reminder and every automatic attempt and late fee on what it covers is held back (reminders skipped dispute_open, attempts blocked dispute_open): an obligation dispute covers that obligation, a plan or payment dispute every obligation of the plan. One open dispute per target (invalid_state naming it); a paid, cancelled, written-off or waived obligation and a reversed payment cannot be disputed (invalid_state). Event dispute.created.',
        body: DisputeCreate,
        response: responses(201, Dispute),
      },
    },
    async (request, reply) => {
      // Before the change: an Idempotency-Key keeps the status the reply has when the change commits.
      reply.code(201);
      const dispute = await service.createDispute(ctx, requireAuth(request), request.body);
      return ok(request, dispute);
    },
  );

  app.get(
    '/disputes',
    {
      schema: {
        operationId: 'listDisputes',
        tags,
        summary: 'List disputes',
        description: 'Newest first. Filters: status, trackId.',
        querystring: DisputeListQuery,
        response: responses(200, ListOf(Dispute)),
      },
    },
    async (request) => ok(request, await service.listDisputes(ctx, requireAuth(request), request.query)),
  );

  app.get(
    '/disputes/:id',
    {
      schema: {
        operationId: 'getDispute',
        'x-errors': ['not_found'],
        tags,
        summary: 'Get a dispute',
        params: IdParams,
        response: responses(200, Dispute),
      },
    },
    async (request) => ok(request, await service.getDispute(ctx, requireAuth(request), request.params.id)),
  );

  app.post(
    '/disputes/:id/resolve',
    {
      schema: {
        operationId: 'resolveDispute',
        'x-errors': ['not_found', 'invalid_state'],
        tags,
        summary: 'Resolve a dispute',
        description:
          "Only an open dispute (else invalid_state). rejected: no action (a validation_error naming action); reminders and attempts resume by themselves. accepted: with no action, nothing changes but the status; adjust lowers the plan's amount by action.amount (required, at most the balance; a plan.adjusted entry); write_off writes off action.amount (default: the obligation's remaining ask for an obligation dispute, that obligation first; the balance otherwise) with reason 'dispute dsp_…: <reason>'; reverse reverses the disputed payment (payment disputes only, else a validation_error naming action.type). The action runs in the same step as the status change; resolution records what was done. Events dispute.accepted, dispute.rejected.",
        params: IdParams,
        body: DisputeResolve,
        response: responses(200, Dispute),
      },
    },
    async (request) =>
      ok(request, await service.resolveDispute(ctx, requireAuth(request), request.params.id, request.body)),
  );
};
