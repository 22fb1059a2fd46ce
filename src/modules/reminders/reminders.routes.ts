import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { ListOf, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import {
  Reminder,
  ReminderCreate,
  ReminderListQuery,
  ReminderLog,
  ReminderLogListQuery,
  ReminderSend,
  ReminderSendAccepted,
} from './reminders.schemas.js';
import * as service from './reminders.service.js';

const tags = ['Reminders'];

export const remindersRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/reminders',
    {
      schema: {
        operationId: 'listReminders',
        tags,
        summary: 'List reminders',
        description: 'Newest first; filters status, channel, source, customerId, trackId, obligationId.',
        querystring: ReminderListQuery,
        response: responses(200, ListOf(Reminder)),
      },
    },
    async (request) => ok(request, await service.listReminders(ctx, requireAuth(request), request.query)),
  );

  app.post(
    '/reminders',
    {
      schema: {
        operationId: 'createReminder',
        tags,
        summary: 'Queue a reminder',
        description:
          'Queues a reminder to the customer of the plan or obligation named (or the customer named), sent at sendAt by the worker. The channel defaults to email when the customer has an address, else sms; a customer without the channel’s contact is a validation_error naming channel. Without message, the text comes from the template, with the amount owed formatted for its currency, the due date in the workspace time zone, the plan title and the business name. Test mode never leaves the machine: deliveries are logged simulated.',
        body: ReminderCreate,
        response: responses(202, Reminder),
      },
    },
    async (request, reply) => {
      reply.code(202);
      return ok(request, await service.createReminder(ctx, requireAuth(request), request.body));
    },
  );

  app.post(
    '/reminders/send',
    {
      schema: {
        operationId: 'sendReminders',
        tags,
        summary: 'Send reminders now',
        description:
          'With reminderIds, sends those queued reminders now, whatever their sendAt; with {}, every queued reminder that is due. A failed send is retried 3 times (after 1, 5 and 30 minutes); every try is a log row.',
        body: ReminderSend,
        response: responses(202, ReminderSendAccepted),
      },
    },
    async (request, reply) => {
      reply.code(202);
      return ok(request, await service.sendReminders(ctx, requireAuth(request), request.body ?? {}));
    },
  );

  app.get(
    '/reminders/logs',
    {
      schema: {
        operationId: 'listReminderLogs',
        tags,
        summary: 'Reminder delivery log',
        description: 'One row per delivery try, newest first; filters reminderId, status, channel.',
        querystring: ReminderLogListQuery,
        response: responses(200, ListOf(ReminderLog)),
      },
    },
    async (request) => ok(request, await service.listReminderLogs(ctx, requireAuth(request), request.query)),
  );
};
