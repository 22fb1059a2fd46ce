import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { AppError } from '../../lib/app-error.js';
import { NotificationReceipt, ProviderNotification, SettingParams } from './notifications.schemas.js';
import { receiveNotification } from './notifications.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body as it arrived, for signatures computed over it. */
    rawBody?: string;
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
      done(new AppError('invalid_json', 'The body is not valid JSON.'), undefined);
    }
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
          'Called by the payment provider, without an API key, at the URL `paytrack provider set` printed. Signed: header `x-provider-signature` is the HMAC-SHA256 (hex) of the raw body keyed with the notification secret as printed; a bad signature is 401 and changes nothing. Idempotent by the notification `id`.',
        params: SettingParams,
        body: ProviderNotification,
        response: responses(200, NotificationReceipt),
      },
    },
    async (request) =>
      ok(
        request,
        await receiveNotification(ctx, request.params.settingId, request.rawBody ?? '', request.headers),
      ),
  );
};
