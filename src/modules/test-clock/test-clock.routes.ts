import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { Envelope, ok } from '../../http/envelope.js';
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
          'the advance, at most 3,652 days (10 years) past real time. Everything of the test mode reads it: ' +
          'timestamps, due dates, reports. `status` is `advancing` while the worker finishes the due work of an ' +
          'advance that answered 202, then `ready`. Live keys get 403.',
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
          'real speed from there. Whatever the form, the clock goes at most 3,652 days (10 years) past real time ' +
          "(the server's clock, not the test clock); further is a 422 validation_error naming the field. Before " +
          'answering it runs the time-driven work of the test mode that falls due on the way, stepping through ' +
          'time in order as the worker would have run all along: at each instant where something falls due ' +
          '(an obligation to collect or turning overdue, a retry, a reminder stage or its 08:00 end of quiet ' +
          'hours, an expiry) everything due is done as of that instant, including what the step itself made ' +
          'due (an attempt created when its obligation fell due is charged at that instant). Each obligation is ' +
          'thus charged, reminded and turned overdue at its own time, and records carry the time of their step. ' +
          'When the answer comes, the workspace is as it would be had the time passed for real; `ran` counts ' +
          'what each kind of work handled. An advance with more due work than the server handles at ' +
          'once (`TEST_CLOCK_ADVANCE_BUDGET` records, 200 by default) answers 202 instead: the clock is at its ' +
          'new time, `status` is `advancing` and `ran` says what ran so far; the worker steps on from where the ' +
          'advance stopped, in batches, then `GET /account/test-clock` shows `ready`. Another advance meanwhile is 409 ' +
          'invalid_state with `details.status` `advancing`. Live keys get 403.',
        body: TestClockAdvance,
        response: { ...responses(200, TestClockAdvanced), 202: Envelope(TestClockAdvanced) },
      },
    },
    async (request, reply) =>
      ok(
        request,
        await service.advanceTestClock(ctx, requireAuth(request), request.body, (status) => {
          reply.code(status === 'advancing' ? 202 : 200);
        }),
      ),
  );
};
