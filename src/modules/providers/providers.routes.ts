import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { AppError } from '../../lib/app-error.js';
import {
  NotificationReceipt,
  ProviderNotification,
  SettingParams,
  WebhookReceipt,
} from './notifications.schemas.js';
import {
  receiveNotification,
  type VerifiedNotification,
  verifyNotification,
} from './notifications.service.js';
import { receiveWebhook, verifyWebhook } from './webhooks.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body as it arrived, for signatures computed over it. */
    rawBody?: string;
    /** Set when the body was not JSON: said only once its signature is known good. */
    unparsedBody?: boolean;
    /** A provider notification whose signature was checked. */
    verifiedNotification?: VerifiedNotification;
  }
}

export const providersRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  // The signature covers the raw body: this scope keeps it beside the parsed one.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    request.rawBody = body as string;
    try {
      done(null, JSON.parse(body as string));
    } catch {
      request.unparsedBody = true;
      done(null, {});
    }
  });
  // The signature first: a caller without the secret learns nothing of the form the body must have.
  app.addHook('preValidation', async (request) => {
    const { settingId } = request.params as { settingId?: unknown };
    if (typeof settingId !== 'string' || !request.routeOptions.url?.includes('/provider-notifications/'))
      return;
    request.verifiedNotification = await verifyNotification(
      ctx,
      settingId,
      request.rawBody ?? '',
      request.headers,
    );
    if (request.unparsedBody) throw new AppError('invalid_json', 'The body is not valid JSON.');
  });

  app.post(
    '/provider-notifications/:settingId',
    {
      config: { public: true },
      schema: {
        operationId: 'receiveProviderNotification',
        'x-errors': ['not_found', 'unauthorized'],
        tags: ['Collection attempts'],
        summary: 'Receive a payment provider notification',
        description:
          "Called by the payment provider, without an API key, at the URL `paytrack provider set` printed. Signed: header `x-provider-signature` is the HMAC-SHA256 (hex) of the raw body keyed with the notification secret as printed; the signature is checked first, and a bad one is 401 and changes nothing. Idempotent by the notification `id`. Money it reports is always recorded, never refused: on the plan its reference names (a virtual account, a checkout, a collection attempt) as far as the balance goes, the obligation it was collected for first; what the plan cannot take (the excess over its balance, a plan completed or archived, another currency, a reference that matches nothing) is an unapplied payment, the customer's credit, evented `payment.unapplied`, to apply with POST /payments/{id}/apply or refund. A late `charge.succeeded` for an attempt that failed or timed out records the payment and cancels its pending retry.",
        params: SettingParams,
        body: ProviderNotification,
        response: responses(200, NotificationReceipt),
      },
    },
    async (request) =>
      ok(
        request,
        await receiveNotification(
          ctx,
          request.verifiedNotification ??
            (await verifyNotification(ctx, request.params.settingId, request.rawBody ?? '', request.headers)),
        ),
      ),
  );

  app.post(
    '/provider-webhooks/:settingId',
    {
      config: { public: true },
      schema: {
        operationId: 'receiveProviderWebhook',
        'x-errors': ['not_found', 'unauthorized', 'service_unavailable'],
        tags: ['Collection attempts'],
        summary: "Receive a payment provider's own webhook (Paystack, Stripe)",
        description:
          "Called by Paystack or Stripe, without an API key, at the webhook URL `paytrack provider set` and `paytrack provider list` print for a setting with a key. Verified with the provider's own scheme before anything is read: Paystack's `x-paystack-signature` (HMAC-SHA512 of the raw body with the secret key), Stripe's `Stripe-Signature` (the endpoint's signing secret, 5 minutes' tolerance); a bad signature is 401 and changes nothing. Each event is acted on once by the provider's event id (Paystack sends none: its type and object id stand in); a redelivery answers as the first delivery did (`replayed`). Events paytrack does not use answer 200, `ignored`. Money reported is always recorded (`source: provider`), once per provider reference whatever the number and order of the events that report it; a reference that names nothing here is an unapplied payment, evented `payment.unapplied`. A refund event for money not recorded yet is 503 and kept for nothing, so the provider delivers it again.",
        params: SettingParams,
        response: responses(200, WebhookReceipt),
      },
    },
    async (request) => {
      const verified = await verifyWebhook(ctx, request.params.settingId, {
        body: request.rawBody ?? '',
        headers: request.headers,
      });
      return ok(request, await receiveWebhook(ctx, verified, request.log));
    },
  );
};
