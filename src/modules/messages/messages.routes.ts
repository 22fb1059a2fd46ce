import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { ListOf, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { receiveCallback } from './callbacks.service.js';
import { listInbound, testInbound } from './inbound.service.js';
import {
  CallbackParams,
  CallbackReceipt,
  InboundMessage,
  InboundMessageListQuery,
  TestInboundMessage,
} from './messages.schemas.js';

const tags = ['Reminders'];

declare module 'fastify' {
  interface FastifyRequest {
    /** A message provider's callback body as it arrived: Twilio signs its parameters. */
    callbackBody?: string;
  }
}

/** Providers' callbacks, in a scope of their own that keeps the body as it came. */
const callbackRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (callbacks, { ctx }) => {
  // The provider's body as it came: Twilio's signature covers its parameters.
  callbacks.removeAllContentTypeParsers();
  callbacks.addContentTypeParser(
    ['application/x-www-form-urlencoded', 'application/json'],
    { parseAs: 'string', bodyLimit: 65_536 },
    (request, body, done) => {
      request.callbackBody = body as string;
      done(null, {});
    },
  );
  callbacks.post(
    '/message-callbacks/:settingId',
    {
      config: { public: true },
      schema: {
        operationId: 'receiveMessageCallback',
        'x-errors': ['not_found', 'unauthorized'],
        tags,
        summary: 'Receive a message provider’s callback (delivery receipts, inbound messages)',
        description:
          "Called by Twilio or Africa's Talking, without an API key, at the callback URL `paytrack messages set` printed. Checked before anything is read: Twilio's X-Twilio-Signature (HMAC-SHA1 of the URL and the sorted parameters with the auth token); Africa's Talking by the setting's token in the URL's query, compared in constant time. A bad one is 401 and changes nothing. Each callback is acted on once by its id: a delivery receipt moves the reminder's log row from sent to delivered or undelivered (events reminder.delivered, reminder.undelivered; an SMS or WhatsApp message not delivered is sent again by e-mail, once, when the customer has an address); an inbound message is kept and evented message.received, STOP opting the customer out of the channel and START back in.",
        params: CallbackParams,
        response: responses(200, CallbackReceipt),
      },
    },
    async (request) =>
      ok(
        request,
        await receiveCallback(ctx, request.params.settingId, {
          url: `${ctx.config.publicUrl}${request.url}`,
          body: request.callbackBody ?? '',
          contentType:
            typeof request.headers['content-type'] === 'string' ? request.headers['content-type'] : null,
          headers: request.headers,
        }),
      ),
  );
};

export const messagesRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/messages',
    {
      schema: {
        operationId: 'listInboundMessages',
        tags,
        summary: 'List the messages customers sent',
        description:
          'Replies and other SMS and WhatsApp messages customers sent to the business, newest first; filter customerId. Scope reminders:read.',
        querystring: InboundMessageListQuery,
        response: responses(200, ListOf(InboundMessage)),
      },
    },
    async (request) => ok(request, await listInbound(ctx, requireAuth(request), request.query)),
  );

  app.post(
    '/account/test-messages/inbound',
    {
      schema: {
        operationId: 'sendTestInboundMessage',
        'x-errors': ['forbidden', 'not_found'],
        tags,
        summary: 'Receive a reply from a customer, in test mode',
        description:
          'Test keys only: acts as if the customer had sent `text` on `channel` from their phone, exactly as a provider’s inbound message is handled (STOP opts out, START opts back in, any message is evented message.received).',
        body: TestInboundMessage,
        response: responses(201, InboundMessage),
      },
    },
    async (request, reply) => {
      reply.code(201);
      return ok(request, await testInbound(ctx, requireAuth(request), request.body));
    },
  );

  await app.register(callbackRoutes, { ctx });
};
