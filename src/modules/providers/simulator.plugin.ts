import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { escapeHtml, isCrossSitePost, PAGE_HEADERS, page } from '../../http/html-page.js';
import { pageRateLimit } from '../../http/rate-limit.js';
import {
  type AuthorizationRecord,
  answerSimulatedAuthorization,
  authorizationKey,
} from '../../ports/simulated-live.js';
import { providerDisplayName } from './providers.service.js';

const REFERENCE = /^sim_auth_man_[0-9A-Z]{26}$/;
const ACTIONS = ['authorize', 'decline', 'cancel'] as const;

function send(reply: FastifyReply, status: number, title: string, body: string) {
  return reply
    .code(status)
    .headers(PAGE_HEADERS)
    .send(page(title, body, { masthead: 'Test mode: simulated provider' }));
}

export const notFound = (reply: FastifyReply) =>
  send(
    reply,
    404,
    'Authorization not found',
    '<h1>Authorization not found</h1><p>This simulated authorization does not exist.</p>',
  );

/**
 * Test mode's stand-in for Paystack's and Stripe's hosted authorization pages (when the workspace gave no sandbox
 * key): the payer authorises, declines or cancels, and is sent back to the consent return page as the provider
 * would send them. Nothing on it is real; it says so.
 */
export const simulatorPages: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  await pageRateLimit(app, ctx.config, 'simulator', 30);
  app.setNotFoundHandler((_request, reply) => notFound(reply));
  const records = ctx.ports.simulatorRecords;

  app.get<{ Params: { reference: string } }>(
    '/authorize/:reference',
    { schema: { hide: true } },
    async (request, reply) => {
      const { reference } = request.params;
      const found =
        REFERENCE.test(reference) && records
          ? await records.get<AuthorizationRecord>(authorizationKey(reference))
          : undefined;
      if (!found) return notFound(reply);
      const provider = escapeHtml(providerDisplayName(found.state.provider));
      if (found.state.status !== 'pending') {
        return send(
          reply,
          200,
          'Already answered',
          `<h1>Already answered</h1><p>This simulated ${provider} authorization was already ${found.state.status === 'active' ? 'authorised' : 'declined'}.</p>`,
        );
      }
      return send(
        reply,
        200,
        `Authorise with ${providerDisplayName(found.state.provider)} (simulated)`,
        `<h1>Authorise automatic payments (simulated ${provider})</h1>
<p>This page stands in for ${provider}'s own page in test mode: no bank or card details are asked, and no money moves.</p>
<dl><dt>Payer</dt><dd>${escapeHtml(found.state.payerName)}</dd><dt>Account</dt><dd>Test Bank (simulated), ending 0000</dd></dl>
<form method="post">
<div class="actions">
<button class="approve" type="submit" name="action" value="authorize">Authorise</button>
<button class="decline" type="submit" name="action" value="decline">Decline</button>
<button class="decline" type="submit" name="action" value="cancel">Cancel</button>
</div>
</form>`,
      );
    },
  );

  app.post<{ Params: { reference: string }; Body: Record<string, string> | undefined }>(
    '/authorize/:reference',
    { schema: { hide: true } },
    async (request, reply) => {
      const { reference } = request.params;
      if (!REFERENCE.test(reference) || !records) return notFound(reply);
      if (isCrossSitePost(request.headers, ctx.config.publicUrl)) {
        return send(reply, 403, 'Not answered', '<h1>Not answered</h1><p>Answer on the page itself.</p>');
      }
      const action = request.body?.action;
      if (!ACTIONS.includes(action as (typeof ACTIONS)[number])) {
        return send(
          reply,
          400,
          'Answer not understood',
          '<h1>Answer not understood</h1><p>Use one of the buttons.</p>',
        );
      }
      const back = await answerSimulatedAuthorization(records, reference, action as (typeof ACTIONS)[number]);
      if (!back) return notFound(reply);
      return reply.code(303).header('location', back).send();
    },
  );
};
