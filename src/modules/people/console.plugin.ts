import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { escapeHtml, isCrossSitePost, PAGE_HEADERS, page } from '../../http/html-page.js';
import { pageRateLimit } from '../../http/rate-limit.js';
import {
  endSession,
  formTokenOf,
  membershipsOf,
  personOfLink,
  SESSION_MAX_MS,
  sessionOf,
  setPasswordByLink,
  signIn,
  startSession,
} from './people.service.js';

export const SESSION_COOKIE = 'paytrack_session';
const LINK = /^pw_[A-Za-z0-9_-]{43}$/;

function send(reply: FastifyReply, status: number, title: string, body: string) {
  return reply
    .code(status)
    .headers(PAGE_HEADERS)
    .send(page(title, `<h1>${escapeHtml(title)}</h1>${body}`, { masthead: 'paytrack console' }));
}

export const notFound = (reply: FastifyReply) =>
  send(reply, 404, 'Page not found', '<p>There is no such page in the console.</p>');

function cookieOf(request: FastifyRequest): string | null {
  const header = request.headers.cookie ?? '';
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE) return value.join('=') || null;
  }
  return null;
}

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
</form>`;
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
 * The console's sign-in: a person signs in by e-mail and password (set through the one-time link
 * `paytrack user create` printed); the session is kept server-side and named by an HttpOnly, SameSite=Lax cookie;
 * every form is refused from another site. These pages need no key.
 */
export const consolePages: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 4096 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  await pageRateLimit(app, ctx.config, 'console', 60);
  app.setErrorHandler((error: Error & { statusCode?: number; rateLimited?: boolean }, request, reply) => {
    if (error.rateLimited)
      return send(reply, 429, 'Too many requests', '<p>Wait a minute, then try again.</p>');
    if ((error.statusCode ?? 500) < 500)
      return send(reply, 400, 'Request not understood', '<p>Open the page again.</p>');
    request.log.error({ err: error }, 'console page failed');
    return send(reply, 500, 'Something went wrong', '<p>Nothing was changed; try again in a moment.</p>');
  });
  app.setNotFoundHandler((_request, reply) => notFound(reply));

  const refuseCrossSite = (request: FastifyRequest, reply: FastifyReply) =>
    isCrossSitePost(request.headers, ctx.config.publicUrl)
      ? send(reply, 403, 'Refused', '<p>This form must be sent from the console itself.</p>')
      : null;

  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const cookie = cookieOf(request);
    const session = cookie ? await sessionOf(ctx.db, ctx.clock, cookie) : undefined;
    if (!cookie || !session) return reply.code(303).header('location', '/console/sign-in').send();
    const workspaces = await membershipsOf(ctx.db, session.user_id);
    const current = workspaces.find((w) => w.workspace_id === session.workspace_id);
    const mode =
      session.mode === 'test'
        ? '<p class="note"><strong>Test mode</strong>: test data only; nothing real moves.</p>'
        : '';
    return send(
      reply,
      200,
      current?.name ?? 'Console',
      `${mode}<p>Signed in as ${escapeHtml(session.email)} (${escapeHtml(session.role)}).</p>
<form method="post" action="/console/sign-out"><input type="hidden" name="form_token" value="${formTokenOf(cookie)}">
<div class="actions"><button class="decline" type="submit">Sign out</button></div></form>`,
    );
  });

  app.get('/sign-in', { schema: { hide: true } }, async (_request, reply) =>
    send(reply, 200, 'Sign in', signInForm()),
  );

  app.post<{ Body: Record<string, string> | undefined }>(
    '/sign-in',
    { schema: { hide: true } },
    async (request, reply) => {
      const refused = refuseCrossSite(request, reply);
      if (refused) return refused;
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

  app.post<{ Body: Record<string, string> | undefined }>(
    '/sign-out',
    { schema: { hide: true } },
    async (request, reply) => {
      const refused = refuseCrossSite(request, reply);
      if (refused) return refused;
      const cookie = cookieOf(request);
      if (cookie && request.body?.form_token === formTokenOf(cookie))
        await endSession(ctx.db, ctx.clock, cookie);
      setCookie(reply, ctx.config.publicUrl, '', 0);
      return reply.code(303).header('location', '/console/sign-in').send();
    },
  );

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
      const refused = refuseCrossSite(request, reply);
      if (refused) return refused;
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
