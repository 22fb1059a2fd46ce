import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { escapeHtml, isCrossSitePost, PAGE_HEADERS, page } from '../../http/html-page.js';
import { pageRateLimit } from '../../http/rate-limit.js';
import type { Mode } from '../../lib/tenant.js';
import {
  endSession,
  membershipsOf,
  personOfLink,
  SESSION_MAX_MS,
  setPasswordByLink,
  signIn,
  startSession,
  switchSession,
} from '../people/index.js';
import { consoleAssets } from './console.assets.js';
import { CONSOLE_SECTIONS } from './console.sections.js';
import { type ConsoleForm, cookieOf, SESSION_COOKIE, visitIn, visitOf } from './console.visit.js';

const LINK = /^pw_[A-Za-z0-9_-]{43}$/;
/** Pages a person reaches before signing in. */
const SIGNED_OUT = ['/console/sign-in', '/console/set-password/', '/console/assets/'];

function send(reply: FastifyReply, status: number, title: string, body: string) {
  return reply
    .code(status)
    .headers(PAGE_HEADERS)
    .send(page(title, `<h1>${escapeHtml(title)}</h1>${body}`, { masthead: 'paytrack console' }));
}

export const notFound = (reply: FastifyReply) =>
  send(
    reply,
    404,
    'Page not found',
    '<p>There is no such page in the console. <a href="/console">Go to the overview</a>.</p>',
  );

function setCookie(reply: FastifyReply, publicUrl: string, value: string, maxAgeSeconds: number) {
  const secure = publicUrl.startsWith('https:') ? '; Secure' : '';
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=${value}; Path=/console; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`,
  );
}

const field = (label: string, name: string, type: string, autocomplete: string) =>
  `<p><label for="${name}">${escapeHtml(label)}</label><br><input id="${name}" name="${name}" type="${type}" autocomplete="${autocomplete}" required></p>`;

function signInForm(problem: string | null = null) {
  return `${problem ? `<p role="alert"><strong>${escapeHtml(problem)}</strong></p>` : ''}
<form method="post" action="/console/sign-in">
${field('E-mail', 'email', 'email', 'username')}
${field('Password', 'password', 'password', 'current-password')}
<div class="actions"><button class="approve" type="submit">Sign in</button></div>
</form>
<p class="note">No password yet? An owner gives you a link to set one (<code>paytrack user create</code> prints the first).
Developers: the <a href="/docs">API reference</a>.</p>`;
}

function setPasswordForm(email: string, problem: string | null = null) {
  return `<p>Choose a password for ${escapeHtml(email)}: at least 10 characters.</p>
${problem ? `<p role="alert"><strong>${escapeHtml(problem)}</strong></p>` : ''}
<form method="post">
${field('New password', 'password', 'password', 'new-password')}
<div class="actions"><button class="approve" type="submit">Set password and sign in</button></div>
</form>`;
}

/**
 * The console: sign-in by e-mail and password (set through a one-time link), a server-side session named by an
 * HttpOnly, SameSite=Lax cookie, then the pages of each section. Every form is refused from another site and
 * must carry the session's form token; every read and change goes through the API as the signed-in person.
 */
export const consolePages: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 65_536 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  await pageRateLimit(app, ctx.config, 'console', 600);
  app.setErrorHandler((error: Error & { statusCode?: number; rateLimited?: boolean }, request, reply) => {
    if (error.rateLimited)
      return send(reply, 429, 'Too many requests', '<p>Wait a minute, then try again.</p>');
    if ((error.statusCode ?? 500) < 500)
      return send(reply, 400, 'Request not understood', '<p>Open the page again.</p>');
    request.log.error({ err: error }, 'console page failed');
    return send(reply, 500, 'Something went wrong', '<p>Nothing was changed; try again in a moment.</p>');
  });
  app.setNotFoundHandler((_request, reply) => notFound(reply));

  app.decorateRequest('consoleVisit', null);
  app.addHook('preHandler', async (request, reply) => {
    const url = request.routeOptions.url ?? '';
    if (SIGNED_OUT.some((prefix) => url.startsWith(prefix))) {
      if (request.method === 'POST' && isCrossSitePost(request.headers, ctx.config.publicUrl))
        return send(reply, 403, 'Refused', '<p>This form must be sent from the console itself.</p>');
      return;
    }
    const visit = await visitOf(app, ctx, request);
    if (!visit) {
      if (request.method === 'POST') setCookie(reply, ctx.config.publicUrl, '', 0);
      return reply.code(303).header('location', '/console/sign-in').send();
    }
    if (request.method === 'POST') {
      const form = (request.body ?? {}) as ConsoleForm;
      if (isCrossSitePost(request.headers, ctx.config.publicUrl) || form.form_token !== visit.formToken)
        return send(
          reply,
          403,
          'Refused',
          '<p>This form must be sent from the console itself. Open the page again.</p>',
        );
    }
    request.consoleVisit = visit;
  });

  await consoleAssets(app);
  for (const register of CONSOLE_SECTIONS) await register(app as FastifyInstance, ctx);

  app.get('/sign-in', { schema: { hide: true } }, async (_request, reply) =>
    send(reply, 200, 'Sign in', signInForm()),
  );

  app.post<{ Body: Record<string, string> | undefined }>(
    '/sign-in',
    { schema: { hide: true }, config: { rateLimit: { max: 30, timeWindow: 60_000 } } },
    async (request, reply) => {
      const { email = '', password = '' } = request.body ?? {};
      const result = await signIn(ctx.db, ctx.clock, email, password);
      if ('refused' in result) {
        return result.refused === 'locked'
          ? send(
              reply,
              429,
              'Sign in',
              signInForm('Too many failed tries for this account: wait 15 minutes, then try again.'),
            )
          : send(reply, 401, 'Sign in', signInForm('That e-mail and password do not match an account.'));
      }
      setCookie(reply, ctx.config.publicUrl, result.token, SESSION_MAX_MS / 1000);
      return reply.code(303).header('location', '/console').send();
    },
  );

  app.post('/sign-out', { schema: { hide: true } }, async (request, reply) => {
    await endSession(ctx.db, ctx.clock, visitIn(request).cookie);
    setCookie(reply, ctx.config.publicUrl, '', 0);
    return reply.code(303).header('location', '/console/sign-in').send();
  });

  app.post<{ Body: ConsoleForm }>('/switch', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    const mode: Mode = request.body.mode === 'live' ? 'live' : 'test';
    const workspaceId = request.body.workspace_id ?? visit.workspace.id;
    const moved = await switchSession(ctx.db, cookieOf(request) ?? '', { workspaceId, mode });
    if (!moved) return send(reply, 403, 'Refused', '<p>You do not belong to that workspace.</p>');
    return reply.code(303).header('location', '/console').send();
  });

  app.get<{ Params: { token: string } }>(
    '/set-password/:token',
    { schema: { hide: true } },
    async (request, reply) => {
      const person = LINK.test(request.params.token)
        ? await personOfLink(ctx.db, ctx.clock, request.params.token)
        : undefined;
      if (!person)
        return send(
          reply,
          410,
          'Link not valid',
          '<p>This link has been used or has expired. Ask an owner for a new one.</p>',
        );
      return send(reply, 200, 'Set your password', setPasswordForm(person.email));
    },
  );

  app.post<{ Params: { token: string }; Body: Record<string, string> | undefined }>(
    '/set-password/:token',
    { schema: { hide: true } },
    async (request, reply) => {
      if (!LINK.test(request.params.token)) return notFound(reply);
      const result = await setPasswordByLink(
        ctx.db,
        ctx.clock,
        request.params.token,
        request.body?.password ?? '',
      );
      if ('problem' in result) {
        const person = await personOfLink(ctx.db, ctx.clock, request.params.token);
        return person
          ? send(reply, 422, 'Set your password', setPasswordForm(person.email, result.problem))
          : send(reply, 410, 'Link not valid', `<p>${escapeHtml(result.problem)}</p>`);
      }
      const [membership] = await membershipsOf(ctx.db, result.user.id);
      if (!membership) return reply.code(303).header('location', '/console/sign-in').send();
      const started = await startSession(ctx.db, ctx.clock, result.user.id, membership.workspace_id, 'test');
      setCookie(reply, ctx.config.publicUrl, started.token, SESSION_MAX_MS / 1000);
      return reply.code(303).header('location', '/console').send();
    },
  );
};
