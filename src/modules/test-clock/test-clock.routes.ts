import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { TestClock, TestClockAdvance, TestClockAdvanced } from './test-clock.schemas.js';
import * as service from './test-clock.service.js';

const tags = ['Account'];

export const testClockRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/account/test-clock',
    {
      schema: {
        operationId: 'getTestClock',
        tags,
        summary: "The workspace's test clock",
        description:
          'Test mode runs on its own clock: real time plus an offset that starts at 0, moved only forward by ' +
          'the advance. Everything of the test mode reads it: timestamps, due dates, reports. Live keys get 403.',
        response: responses(200, TestClock),
      },
    },
    async (request) => ok(request, await service.getTestClock(ctx, requireAuth(request))),
  );

  app.post(
    '/account/test-clock/advance',
    {
      schema: {
        operationId: 'advanceTestClock',
        'x-errors': ['invalid_state'],
        tags,
        summary: 'Move the test clock forward',
        description:
          'Moves the test clock by `days` or `hours`, or to the instant `to` (never back), then keeps running at ' +
          'real speed from there. Before answering it runs all time-driven work of the test mode that falls due ' +
          'on the way and counts what each kind handled. Live keys get 403.',
        body: TestClockAdvance,
        response: responses(200, TestClockAdvanced),
      },
    },
    async (request) => ok(request, await service.advanceTestClock(ctx, requireAuth(request), request.body)),
  );
};
