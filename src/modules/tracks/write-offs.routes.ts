import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { IdParams, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { Track } from './tracks.schemas.js';
import { WriteOffCreate } from './write-offs.schemas.js';
import * as service from './write-offs.service.js';

const tags = ['Payment plans (tracks)'];

export const writeOffsRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/tracks/:id/write-off',
    {
      schema: {
        operationId: 'writeOffTrack',
        'x-errors': ['not_found', 'invalid_state'],
        tags,
        summary: "Write off a payment plan's balance",
        description:
          "Gives up amount (default: the whole balance; at most the balance) of an active plan: its amount and balance drop by a plan.written_off ledger entry (not a payment; balance stays amount - amountPaid). The plan's open obligations that then ask more than the balance give it up latest due date first: one whose whole remaining ask goes becomes written_off (its amount kept), one partly covered asks less and stays open. Nothing left: the plan is completed with its schedules. A completed or archived plan is invalid_state. Open promises and disputes on the plan are left as they are. Event track.written_off.",
        params: IdParams,
        body: WriteOffCreate,
        response: responses(200, Track),
      },
    },
    async (request) =>
      ok(request, await service.writeOffTrack(ctx, requireAuth(request), request.params.id, request.body)),
  );

  app.post(
    '/tracks/:id/write-off/reverse',
    {
      schema: {
        operationId: 'reverseTrackWriteOff',
        'x-errors': ['not_found', 'invalid_state'],
        tags,
        summary: "Reverse a payment plan's last write-off",
        description:
          "Undoes the plan's last write-off while it is still the plan's last money change: its amount goes back on the balance (ledger plan.write_off_reversed), each obligation it changed is as it was (one written off is open again, overdue when its time has come) and each schedule it completed is back in force; a completed plan is active again. invalid_state when the plan has no write-off, it is already reversed, or money moved since (a payment, adjustment, fee or reversal). Event track.write_off_reversed.",
        params: IdParams,
        response: responses(200, Track),
      },
    },
    async (request) =>
      ok(request, await service.reverseTrackWriteOff(ctx, requireAuth(request), request.params.id)),
  );
};
