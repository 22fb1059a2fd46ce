import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { isCrossSitePost, pageHeaders } from '../../http/html-page.js';
import type { List } from '../../http/internal-api.js';
import { pageRateLimit } from '../../http/rate-limit.js';
import { AppError } from '../../lib/app-error.js';
import { addDays, localDate } from '../../lib/calendar.js';
import { formatMoney } from '../../lib/money.js';
import { readAmount } from '../console/amount-input.js';
import { customerStatementPdf } from '../statements/statements.service.js';
import type { BusinessCard } from '../workspaces/workspaces.service.js';
import {
  type ClosedLink,
  closedLinkPage,
  type PortalMandate,
  type PortalObligation,
  type PortalPayment,
  type PortalPlan,
  type PortalPromise,
  portalHome,
  revokeMandateForm,
} from './portal.page.js';
import { statementPage } from './portal.statement.js';
import { openPortal, type PortalVisit } from './portal.visit.js';

/** Requests a minute one address may make to customer pages. */
const PER_IP_PER_MINUTE = 60;

const NOTICES: Record<string, string> = {
  mandate_revoked: 'Automatic payments stopped. Nothing more will be taken automatically.',
  promise_made: 'Thank you: your promise to pay is recorded.',
};

function send(reply: FastifyReply, status: number, html: string, business: BusinessCard | null) {
  return reply.code(status).headers(pageHeaders(business?.brandColor)).send(html);
}

function closed(reply: FastifyReply, reason: ClosedLink, business: BusinessCard | null = null) {
  const { status, html } = closedLinkPage(reason, business);
  return send(reply, status, html, business);
}

/** Also the answer to an address under /c that cannot be routed at all (bad percent-encoding). */
export const unknownPortalLink = (reply: FastifyReply) => closed(reply, 'unknown');

/** What the API answered, or the reason the page cannot be shown. */
function dataOf<T>(
  answer: { ok: true; data: T } | { ok: false; status: number; error: { message: string } },
): T {
  if (answer.ok) return answer.data;
  throw new AppError(
    'internal_error',
    `the customer page's read failed (${answer.status}): ${answer.error.message}`,
  );
}

/** Why the API refused a payer's promise, in the payer's words. */
function promiseRefusal(fields: Record<string, string>, plan: PortalPlan): string {
  if (fields.amount) return `promise at most what you owe, ${formatMoney(plan.balance, plan.currency)}.`;
  if (fields.date) return 'choose a date from today, at most a year ahead.';
  return 'you have already promised to pay this plan, or it is closed.';
}

/** How far back the page lists instalments (those overdue are listed however old). */
const RECENT_DAYS = 62;

/** Why the page is shown again after a refused promise to pay, and what was typed. */
interface Refusal {
  problem: string;
  promise: { plan: string; amount: string; date: string };
}

async function home(visit: PortalVisit, notice: string | null, refusal: Refusal | null = null) {
  const customer_id = visit.customerId;
  const today = localDate(visit.now, visit.business.timeZone);
  const [plans, overdue, recent, writtenOff, payments, mandates, promises] = await Promise.all([
    visit.api.get<List<PortalPlan>>('/tracks', { customerId: customer_id, limit: 100 }),
    visit.api.get<List<PortalObligation>>('/obligations', { customer_id, status: 'overdue', limit: 100 }),
    visit.api.get<List<PortalObligation>>('/obligations', {
      customer_id,
      due_from: addDays(today, -RECENT_DAYS),
      limit: 100,
    }),
    visit.api.get<List<PortalObligation>>('/obligations', { customer_id, status: 'written_off', limit: 100 }),
    visit.api.get<List<PortalPayment>>('/payments', { customerId: customer_id, limit: 20 }),
    visit.api.get<List<PortalMandate>>('/payment-mandates', { payer_id: customer_id, limit: 20 }),
    visit.api.get<List<PortalPromise>>('/promises', { customerId: customer_id, status: 'open', limit: 100 }),
  ]);
  const obligations = new Map(
    [...dataOf(overdue).items, ...dataOf(recent).items, ...dataOf(writtenOff).items].map(
      (o) => [o.id, o] as const,
    ),
  );
  return portalHome({
    token: visit.token,
    business: visit.business,
    customerName: visit.customerName,
    today,
    test: visit.test,
    plans: dataOf(plans).items.filter((p) => p.status !== 'archived'),
    obligations: [...obligations.values()],
    payments: dataOf(payments).items,
    mandates: dataOf(mandates).items,
    promises: dataOf(promises).items,
    notice,
    problem: refusal?.problem ?? null,
    refusedPromise: refusal?.promise ?? null,
  });
}

/**
 * The customer's own page at `/c/<token>`: no login, the token is their authority until it expires or is
 * revoked. Everything it shows or does goes through the API as the customer (actor `payer`), limited to their
 * own records; strict headers (no framing, no script), a per-address rate limit, and same-site posts only.
 */
export const portalPages: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 2048 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  await pageRateLimit(app, ctx.config, 'portal', PER_IP_PER_MINUTE);
  app.setErrorHandler((error: Error & { statusCode?: number; rateLimited?: boolean }, request, reply) => {
    if (error.rateLimited) return closed(reply, 'rate_limited');
    if (error instanceof AppError && error.code === 'validation_error') return closed(reply, 'unknown');
    request.log.error({ err: error }, 'customer page failed');
    return closed(reply, 'error');
  });
  app.setNotFoundHandler((_request, reply) => closed(reply, 'unknown'));

  /** The visit a token opens, or the page that says why it opens nothing (already sent). */
  async function visitOr(reply: FastifyReply, token: string): Promise<PortalVisit | undefined> {
    const opening = await openPortal(app, ctx, token);
    if (opening.open) return opening.visit;
    await closed(reply, opening.reason, 'business' in opening ? opening.business : null);
    return undefined;
  }

  app.get<{ Params: { token: string }; Querystring: { notice?: string } }>(
    '/:token',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = await visitOr(reply, request.params.token);
      if (!visit) return reply;
      const notice = NOTICES[String(request.query.notice ?? '')] ?? null;
      return send(reply, 200, await home(visit, notice), visit.business);
    },
  );

  app.post<{ Params: { token: string }; Body: Record<string, string> | undefined }>(
    '/:token/pay',
    { schema: { hide: true } },
    async (request, reply) => {
      if (isCrossSitePost(request.headers, ctx.config.publicUrl)) return closed(reply, 'unknown');
      const visit = await visitOr(reply, request.params.token);
      if (!visit) return reply;
      const planId = String(request.body?.plan ?? '');
      const plan = planId
        ? await visit.api.get<PortalPlan & { customerId: string }>(`/tracks/${encodeURIComponent(planId)}`)
        : null;
      if (!plan?.ok || plan.data.customerId !== visit.customerId)
        return closed(reply, 'unknown', visit.business);
      const link = await visit.api.send<{ url: string }>(
        'POST',
        `/tracks/${encodeURIComponent(planId)}/pay-links`,
        {},
      );
      if (!link.ok) return reply.redirect(`/c/${visit.token}`, 303);
      return reply.redirect(link.data.url, 303);
    },
  );

  app.post<{ Params: { token: string }; Body: Record<string, string> | undefined }>(
    '/:token/promise',
    { schema: { hide: true } },
    async (request, reply) => {
      if (isCrossSitePost(request.headers, ctx.config.publicUrl)) return closed(reply, 'unknown');
      const visit = await visitOr(reply, request.params.token);
      if (!visit) return reply;
      const planId = String(request.body?.plan ?? '');
      const plan = planId
        ? await visit.api.get<PortalPlan & { customerId: string }>(`/tracks/${encodeURIComponent(planId)}`)
        : null;
      if (!plan?.ok || plan.data.customerId !== visit.customerId)
        return closed(reply, 'unknown', visit.business);
      const typed = {
        plan: planId,
        amount: String(request.body?.amount ?? '').slice(0, 40),
        date: String(request.body?.date ?? '')
          .trim()
          .slice(0, 10),
      };
      const refused = (problem: string) =>
        home(visit, null, { problem: `Your promise was not recorded: ${problem}`, promise: typed }).then(
          (html) => send(reply, 422, html, visit.business),
        );
      const amount = readAmount(request.body?.amount, plan.data.currency);
      if (!amount.ok) return refused(amount.error);
      const made = await visit.api.send('POST', '/promises', {
        trackId: planId,
        amount: amount.minor,
        date: String(request.body?.date ?? '').trim(),
      });
      if (made.ok) return reply.redirect(`/c/${visit.token}?notice=promise_made`, 303);
      return refused(promiseRefusal(made.error.details?.fields ?? {}, plan.data));
    },
  );

  /** The customer's own mandate, or undefined (after sending the page that says so). */
  async function mandateOr(reply: FastifyReply, visit: PortalVisit, id: string) {
    const found = await visit.api.get<PortalMandate & { payer_id: string }>(
      `/payment-mandates/${encodeURIComponent(id)}`,
    );
    if (found.ok && found.data.payer_id === visit.customerId) return found.data;
    await closed(reply, 'unknown', visit.business);
    return undefined;
  }

  app.get<{ Params: { token: string; id: string } }>(
    '/:token/mandates/:id',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = await visitOr(reply, request.params.token);
      if (!visit) return reply;
      const mandate = await mandateOr(reply, visit, request.params.id);
      if (!mandate) return reply;
      if (mandate.status !== 'active' && mandate.status !== 'pending')
        return reply.redirect(`/c/${visit.token}`, 303);
      return send(reply, 200, revokeMandateForm(visit, mandate), visit.business);
    },
  );

  app.post<{ Params: { token: string; id: string } }>(
    '/:token/mandates/:id',
    { schema: { hide: true } },
    async (request, reply) => {
      if (isCrossSitePost(request.headers, ctx.config.publicUrl)) return closed(reply, 'unknown');
      const visit = await visitOr(reply, request.params.token);
      if (!visit) return reply;
      const mandate = await mandateOr(reply, visit, request.params.id);
      if (!mandate) return reply;
      const revoked = await visit.api.send(
        'POST',
        `/payment-mandates/${encodeURIComponent(mandate.id)}/revoke`,
        {
          reason: 'Revoked by the payer on their page',
        },
      );
      return reply.redirect(`/c/${visit.token}${revoked.ok ? '?notice=mandate_revoked' : ''}`, 303);
    },
  );

  app.get<{ Params: { token: string } }>(
    '/:token/statement',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = await visitOr(reply, request.params.token);
      if (!visit) return reply;
      const statement = await visit.api.get<unknown>(
        `/customers/${encodeURIComponent(visit.customerId)}/statement`,
      );
      return send(reply, 200, statementPage(visit, dataOf(statement)), visit.business);
    },
  );

  app.get<{ Params: { token: string } }>(
    '/:token/statement.pdf',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = await visitOr(reply, request.params.token);
      if (!visit) return reply;
      const gone = new AbortController();
      reply.raw.once('close', () => gone.abort());
      const pdf = await customerStatementPdf(
        ctx,
        visit.tenant,
        visit.customerId,
        {},
        {
          signal: gone.signal,
          onError: (error) =>
            request.log.error({ err: error }, 'customer page statement PDF failed while streaming'),
        },
      );
      return reply
        .code(200)
        .headers({ ...pageHeaders(null), 'content-type': 'application/pdf' })
        .header('content-disposition', `attachment; filename="${pdf.filename}"`)
        .send(pdf.stream);
    },
  );
};
