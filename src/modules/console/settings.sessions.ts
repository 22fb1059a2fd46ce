import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { recordAudit } from '../audit/index.js';
import { endSessionById, type OpenSession, openSessionsOf, sessionIdOfCookie } from '../people/index.js';
import { esc, formStart, notice, table, when } from './console.html.js';
import { type ConsoleForm, type Visit, visitIn } from './console.visit.js';
import {
  actorOf,
  auditTenant,
  missing,
  ROLE_NAMES,
  redirectTo,
  refuse,
  sendSettings,
} from './settings.common.js';

const PAGE = '/console/settings/sessions';

const MESSAGES = { ended: 'The session has ended: its cookie no longer signs anyone in.' };

/** Whether the visitor may end this session: managing people, and an owner's needs an owner. */
const mayEnd = (visit: Visit, session: OpenSession) =>
  visit.can('manage_people') && (session.role !== 'owner' || visit.can('manage_owners'));

export function sessionsSettings(app: FastifyInstance, ctx: AppContext) {
  app.get<{ Querystring: { done?: string } }>(
    '/sessions',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      const sessions = await openSessionsOf(ctx.db, ctx.clock, visit.workspace.id);
      const mine = sessionIdOfCookie(visit.cookie);
      const managing = visit.can('manage_people');
      const list = table(
        'Sessions open in this workspace',
        [
          {
            head: 'Person',
            cell: (s: OpenSession) =>
              `${esc(s.name ?? s.email)}${s.name ? `<br><span class="note">${esc(s.email)}</span>` : ''}${
                s.id === mine ? '<br><strong>this session (you)</strong>' : ''
              }`,
          },
          { head: 'Role', cell: (s: OpenSession) => esc(ROLE_NAMES[s.role]) },
          { head: 'Looking at', cell: (s: OpenSession) => (s.mode === 'live' ? 'live data' : 'test data') },
          { head: 'Signed in', cell: (s: OpenSession) => when(visit, s.createdAt) },
          { head: 'Last used', cell: (s: OpenSession) => when(visit, s.lastSeenAt) },
          ...(managing
            ? [
                {
                  head: 'End',
                  cell: (s: OpenSession) =>
                    mayEnd(visit, s)
                      ? `${formStart(visit, `${PAGE}/${s.id}/end`, { className: 'inline', label: `End the session of ${s.email}` })}<button type="submit" class="secondary" aria-label="End session of ${esc(s.email)} signed in ${when(visit, s.createdAt)}">End session</button></form>`
                      : '<span class="note">an owner’s</span>',
                },
              ]
            : []),
        ],
        sessions,
        'No one is signed in.',
      );
      return sendSettings(reply, visit, {
        title: 'Sessions',
        page: 'sessions',
        body: `${notice(request.query.done, MESSAGES)}<p class="note">A session ends on sign-out, after 12 idle hours, or 7 days after sign-in. Ending one here signs that browser out at once.</p>${list}`,
      });
    },
  );

  app.post<{ Params: { id: string }; Body: ConsoleForm }>(
    '/sessions/:id/end',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      if (!visit.can('manage_people'))
        return refuse(reply, visit, 'sessions', 'Only an owner or admin ends sessions.');
      const sessions = await openSessionsOf(ctx.db, ctx.clock, visit.workspace.id);
      const session = sessions.find((s) => s.id === request.params.id);
      if (!session) return missing(reply, visit, 'sessions', 'open session');
      if (!mayEnd(visit, session))
        return refuse(reply, visit, 'sessions', 'Only an owner ends the session of an owner.');
      const ended = await endSessionById(
        ctx,
        ctx.clock,
        { workspaceId: visit.workspace.id, sessionId: session.id },
        (trx, done) =>
          recordAudit(trx, auditTenant(visit), {
            actor: actorOf(visit),
            action: 'sessions.end',
            record: { type: 'user', id: done.userId },
            changes: { session: [done.id, null] },
          }),
      );
      if (!ended) return missing(reply, visit, 'sessions', 'open session');
      return ended.id === sessionIdOfCookie(visit.cookie)
        ? redirectTo(reply, '/console/sign-in')
        : redirectTo(reply, PAGE, 'ended');
    },
  );
}
