import type { FastifyBaseLogger, FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { recordAudit } from '../audit/index.js';
import {
  changeRole,
  type Invitation,
  invitePerson,
  isRole,
  type Member,
  type MembershipRefusal,
  memberOf,
  peopleOf,
  ROLES,
  type Role,
  removeMember,
  renewLink,
} from '../people/index.js';
import { esc, field, formStart, notice, table, when } from './console.html.js';
import { type ConsoleForm, type Visit, visitIn } from './console.visit.js';
import {
  actorOf,
  auditTenant,
  type FormShown,
  fieldsRefused,
  missing,
  problemOf,
  ROLE_ABOUT,
  ROLE_NAMES,
  reasonOf,
  redirectTo,
  refuse,
  sendSettings,
  settingsView,
} from './settings.common.js';

const PAGE = '/console/settings/people';

const MESSAGES = {
  invited_mailed:
    'The invitation is sent: an e-mail with their link to set a password (it works once, for 24 hours).',
  invited_existing:
    'They already have an account: they see this workspace the next time they sign in, with the role you gave.',
  invited_pending:
    'They were invited to another workspace and have not set their password yet: once they do, with the link they have, they see this workspace too.',
  link_mailed: 'A new link is e-mailed to them; the links sent before no longer work.',
  role: 'The role is changed; it applies from their next page.',
  removed: 'They no longer belong to this workspace; their sessions here have ended.',
  unchanged: 'Nothing was changed: that is already their role.',
};

const REFUSALS: Record<MembershipRefusal, { status: number; message: string }> = {
  missing: { status: 404, message: 'That person does not belong to this workspace (any more).' },
  changed: { status: 409, message: 'Their role changed meanwhile; look at the list again.' },
  last_owner: {
    status: 409,
    message: 'A workspace keeps at least one owner: make another person owner first.',
  },
};

const REMOVAL_REFUSALS = {
  people: 'Only an owner or admin removes people.',
  owner: 'Only an owner removes an owner.',
};

/** Whether the visitor may change this person (an owner, or making one, needs an owner). */
const mayManage = (visit: Visit, role: Role) =>
  visit.can('manage_people') && (role !== 'owner' || visit.can('manage_owners'));

const roleOptions = (visit: Visit) =>
  ROLES.filter((role) => role !== 'owner' || visit.can('manage_owners')).map((role) => ({
    value: role,
    label: ROLE_NAMES[role],
  }));

function roleForm(visit: Visit, member: Member): string {
  const id = `role-${member.id}`;
  return `${formStart(visit, `${PAGE}/${encodeURIComponent(member.id)}/role`, { className: 'role-form', label: `Role of ${member.email}` })}<select id="${esc(id)}" name="role" aria-label="Role of ${esc(member.email)}">${roleOptions(
    visit,
  )
    .map(
      (o) =>
        `<option value="${o.value}"${o.value === member.role ? ' selected' : ''}>${esc(o.label)}</option>`,
    )
    .join('')}</select> <button type="submit" class="secondary">Change role</button></form>`;
}

function inviteForm(
  ctx: AppContext,
  visit: Visit,
  typed: ConsoleForm = {},
  errors: Record<string, string> = {},
): string {
  const how = ctx.config.smtpUrl
    ? 'They get an e-mail with a link to set their password (it works once, for 24 hours).'
    : 'You get a link to give them (it works once, for 24 hours): no e-mail server is set up (SMTP_URL).';
  return `<div class="card settings-card"><h2>Invite someone</h2><p class="note">${esc(how)}</p>
${formStart(visit, PAGE, { label: 'Invite someone' })}
${field({ name: 'email', label: 'E-mail', type: 'email', required: true, value: typed.email ?? '', attributes: 'maxlength="254" autocomplete="off"', ...(errors.email ? { error: errors.email } : {}) })}
${field({ name: 'name', label: 'Name', hint: 'Optional.', value: typed.name ?? '', attributes: 'maxlength="200" autocomplete="off"', ...(errors.name ? { error: errors.name } : {}) })}
${field({ name: 'role', label: 'Role', value: typed.role ?? 'viewer', options: roleOptions(visit), ...(errors.role ? { error: errors.role } : {}) })}
<div class="actions"><button type="submit">Invite</button></div>
</form></div>`;
}

async function peoplePage(ctx: AppContext, visit: Visit, options: FormShown): Promise<string> {
  const people = await peopleOf(ctx.db, visit.workspace.id);
  const managing = visit.can('manage_people');
  const rows = table(
    'People of this workspace',
    [
      {
        head: 'Person',
        cell: (m: Member) =>
          `${m.name ? `${esc(m.name)}<br>` : ''}${esc(m.email)}${m.id === visit.person.id ? ' <span class="note">(you)</span>' : ''}`,
      },
      {
        head: 'Role',
        cell: (m: Member) => (mayManage(visit, m.role) ? roleForm(visit, m) : esc(ROLE_NAMES[m.role])),
      },
      {
        head: 'Password',
        cell: (m: Member) =>
          m.passwordSet
            ? 'set'
            : `<span class="status wait">invited</span>${
                mayManage(visit, m.role)
                  ? `${formStart(visit, `${PAGE}/${encodeURIComponent(m.id)}/link`, { className: 'inline', label: `New link for ${m.email}` })} <button type="submit" class="secondary" aria-label="New link for ${esc(m.email)}">New link</button></form>`
                  : ''
              }`,
      },
      { head: 'Joined', cell: (m: Member) => when(visit, m.joinedAt) },
      ...(managing
        ? [
            {
              head: 'Remove',
              cell: (m: Member) =>
                mayManage(visit, m.role)
                  ? `<a href="${PAGE}/${encodeURIComponent(m.id)}/remove" aria-label="Remove ${esc(m.email)}">Remove</a>`
                  : '<span class="note">an owner’s</span>',
            },
          ]
        : []),
    ],
    people,
  );
  const roles = `<h2>Roles</h2><dl class="facts">${ROLES.map(
    (role) => `<dt>${esc(ROLE_NAMES[role])}</dt><dd>${esc(ROLE_ABOUT[role])}</dd>`,
  ).join('')}</dl>`;
  return `${notice(options.done, MESSAGES)}${problemOf(options.error, { email: 'E-mail', name: 'Name', role: 'Role' })}${rows}${
    managing ? inviteForm(ctx, visit, options.typed, options.errors) : ''
  }<div class="card settings-card">${roles}</div>`;
}

function inviteMail(ctx: AppContext, visit: Visit, role: Role, link: string | null) {
  const who = visit.person.name ?? visit.person.email;
  const where = `${visit.workspace.name} on paytrack`;
  const text = link
    ? `${who} invited you to ${where} as ${ROLE_NAMES[role].toLowerCase()}.\n\nSet your password with this link (it works once, for 24 hours):\n\n${link}\n\nIf you did not expect this, ignore this e-mail.`
    : `${who} added you to ${where} as ${ROLE_NAMES[role].toLowerCase()}.\n\nSign in as usual to see it: ${ctx.config.publicUrl}/console/sign-in`;
  return { subject: `You are invited to ${visit.workspace.name}`, text };
}

/** E-mails a person their invitation; what went wrong when it could not be sent, null when it was. */
async function mailInvitation(
  ctx: AppContext,
  log: FastifyBaseLogger,
  visit: Visit,
  to: { email: string; role: Role },
  link: string | null,
): Promise<string | null> {
  const mail = inviteMail(ctx, visit, to.role, link);
  const receipt = await ctx.ports
    .messages('live')
    .send({ channel: 'email', to: to.email, subject: mail.subject, text: mail.text });
  if (receipt.status !== 'failed') return null;
  log.warn({ error: receipt.error }, 'an invitation e-mail could not be sent');
  return receipt.error ?? 'the mail server refused it';
}

/** The invitation's link, shown once to the person who invited (no e-mail server, or the e-mail failed). */
function linkPage(email: string, link: string, mailProblem: string | null, renewed = false) {
  return `${
    mailProblem
      ? `<div class="problem" role="alert"><strong>The e-mail could not be sent (${esc(mailProblem)}). Give them this link yourself.</strong></div>`
      : ''
  }<div class="notice" role="status">${
    renewed
      ? `A new link for ${esc(email)}: the links given before no longer work.`
      : `${esc(email)} is invited.`
  }</div>
<div class="card settings-card"><h2>Their link</h2>
<p>Give ${esc(email)} this link to set their password. It works once, for 24 hours, and is shown only now: copy it before you leave this page.</p>
<p><label for="invite-link">Link to set a password</label><input id="invite-link" class="secret" type="text" readonly value="${esc(link)}"></p>
<p><a href="${PAGE}">Back to the people</a></p></div>`;
}

export function peopleSettings(app: FastifyInstance, ctx: AppContext) {
  const show = settingsView('People and roles', 'people', (visit, options: FormShown) =>
    peoplePage(ctx, visit, options),
  );

  /** The invitation form again, its field `name` refused with `message`. */
  const refuseInvite = (
    reply: FastifyReply,
    visit: Visit,
    status: number,
    form: ConsoleForm,
    name: string,
    message: string,
  ) =>
    show(
      reply,
      visit,
      {
        error: fieldsRefused('The invitation was not sent: correct the field named below.', {
          [name]: message,
        }),
        typed: form,
        errors: { [name]: message },
      },
      status,
    );

  /** The list again, with why a change of a membership was refused. */
  const refuseChange = (reply: FastifyReply, visit: Visit, refused: MembershipRefusal) => {
    const { status, message } = REFUSALS[refused];
    return show(reply, visit, { error: { code: 'invalid_state', message } }, status);
  };

  /**
   * The person of this workspace a form acts on, for one who manages people (and, with `refusals.owner`, an
   * owner's membership only for an owner); otherwise the refusal is sent.
   */
  async function personToManage(
    reply: FastifyReply,
    visit: Visit,
    id: string,
    refusals: { people: string; owner?: string },
  ): Promise<{ member: Member } | { sent: FastifyReply }> {
    if (!visit.can('manage_people')) return { sent: refuse(reply, visit, 'people', refusals.people) };
    const member = await memberOf(ctx.db, visit.workspace.id, id);
    if (!member) return { sent: missing(reply, visit, 'people', 'person') };
    if (refusals.owner && !mayManage(visit, member.role))
      return { sent: refuse(reply, visit, 'people', refusals.owner) };
    return { member };
  }

  app.get<{ Querystring: { done?: string } }>('/people', { schema: { hide: true } }, async (request, reply) =>
    show(reply, visitIn(request), { done: request.query.done }),
  );

  app.post<{ Body: ConsoleForm }>('/people', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('manage_people'))
      return refuse(reply, visit, 'people', 'Only an owner or admin invites people.');
    const form = request.body;
    const role = form.role ?? '';
    if (!isRole(role))
      return refuseInvite(reply, visit, 422, form, 'role', 'must be owner, admin, collector or viewer');
    if (role === 'owner' && !visit.can('manage_owners'))
      return refuse(reply, visit, 'people', 'Only an owner invites an owner.');
    const name = (form.name ?? '').trim();
    if (name.length > 200)
      return refuseInvite(reply, visit, 422, form, 'name', 'must be at most 200 characters');
    const byMail = ctx.config.smtpUrl !== undefined;
    const invited = await invitePerson(
      ctx,
      ctx.clock,
      { workspaceId: visit.workspace.id, email: form.email ?? '', role, name, byMail },
      (trx, made: Invitation) =>
        recordAudit(trx, auditTenant(visit), {
          actor: actorOf(visit),
          action: 'people.invite',
          record: { type: 'user', id: made.user.id },
          changes: { email: [null, made.user.email], role: [null, role] },
        }),
    );
    if ('problem' in invited) {
      const message =
        invited.problem === 'email'
          ? 'must be an e-mail address such as ada@example.com'
          : `already belongs to this workspace (${ROLE_NAMES[invited.role].toLowerCase()}); change their role in the list`;
      return refuseInvite(reply, visit, invited.problem === 'email' ? 422 : 409, form, 'email', message);
    }
    const link = invited.token ? `${ctx.config.publicUrl}/console/set-password/${invited.token}` : null;
    let mailProblem: string | null = null;
    if (byMail) {
      mailProblem = await mailInvitation(ctx, request.log, visit, { email: invited.user.email, role }, link);
      if (mailProblem === null) return redirectTo(reply, PAGE, link ? 'invited_mailed' : 'invited_existing');
    }
    if (!link)
      return redirectTo(reply, PAGE, invited.pendingElsewhere ? 'invited_pending' : 'invited_existing');
    return sendSettings(
      reply,
      visit,
      { title: 'Invitation', page: 'people', body: linkPage(invited.user.email, link, mailProblem) },
      201,
    );
  });

  app.post<{ Params: { id: string }; Body: ConsoleForm }>(
    '/people/:id/link',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      const found = await personToManage(reply, visit, request.params.id, {
        people: 'Only an owner or admin sends new links.',
        owner: 'Only an owner sends an owner a new link.',
      });
      if ('sent' in found) return found.sent;
      const { member } = found;
      const byMail = ctx.config.smtpUrl !== undefined;
      const renewed = await renewLink(
        ctx,
        ctx.clock,
        { workspaceId: visit.workspace.id, userId: member.id, byMail },
        (trx) =>
          recordAudit(trx, auditTenant(visit), {
            actor: actorOf(visit),
            action: 'people.link',
            record: { type: 'user', id: member.id },
            changes: { link: [null, 'new'] },
          }),
      );
      if ('refused' in renewed) {
        const message = {
          missing: 'That person does not belong to this workspace (any more).',
          password_set: 'They have set their password already: they sign in with it.',
          pending_elsewhere:
            'They were invited to another workspace too: a link shown here could open that one as well. Ask them to use the link they have, or set up e-mail (SMTP_URL) so it goes to their address.',
        }[renewed.refused];
        return show(
          reply,
          visit,
          { error: { code: 'invalid_state', message } },
          renewed.refused === 'missing' ? 404 : 409,
        );
      }
      const link = `${ctx.config.publicUrl}/console/set-password/${renewed.token}`;
      let mailProblem: string | null = null;
      if (byMail) {
        mailProblem = await mailInvitation(ctx, request.log, visit, renewed, link);
        if (mailProblem === null) return redirectTo(reply, PAGE, 'link_mailed');
      }
      return sendSettings(
        reply,
        visit,
        { title: 'A new link', page: 'people', body: linkPage(renewed.email, link, mailProblem, true) },
        201,
      );
    },
  );

  app.post<{ Params: { id: string }; Body: ConsoleForm }>(
    '/people/:id/role',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      const found = await personToManage(reply, visit, request.params.id, {
        people: 'Only an owner or admin changes roles.',
      });
      if ('sent' in found) return found.sent;
      const { member } = found;
      const role = request.body.role ?? '';
      if (!isRole(role))
        return show(
          reply,
          visit,
          { error: { code: 'validation_error', message: 'A role is owner, admin, collector or viewer.' } },
          422,
        );
      if ((member.role === 'owner' || role === 'owner') && !visit.can('manage_owners'))
        return refuse(reply, visit, 'people', 'Only an owner makes, changes or demotes an owner.');
      if (role === member.role) return redirectTo(reply, PAGE, 'unchanged');
      const changed = await changeRole(
        ctx,
        { workspaceId: visit.workspace.id, userId: member.id, from: member.role, to: role },
        (trx, change) =>
          recordAudit(trx, auditTenant(visit), {
            actor: actorOf(visit),
            action: 'people.role',
            record: { type: 'user', id: member.id },
            changes: { role: [change.before, change.after] },
          }),
      );
      return 'refused' in changed
        ? refuseChange(reply, visit, changed.refused)
        : redirectTo(reply, PAGE, 'role');
    },
  );

  app.get<{ Params: { id: string } }>(
    '/people/:id/remove',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      const found = await personToManage(reply, visit, request.params.id, REMOVAL_REFUSALS);
      if ('sent' in found) return found.sent;
      const { member } = found;
      const self = member.id === visit.person.id;
      return sendSettings(reply, visit, {
        title: 'Remove a person',
        page: 'people',
        body: `<div class="card settings-card"><p>Remove <strong>${esc(member.email)}</strong> (${esc(ROLE_NAMES[member.role].toLowerCase())}) from ${esc(visit.workspace.name)}? Their sessions here end at once; their account stays for their other workspaces.${
          self ? ' <strong>This is you: you will be signed out of this workspace.</strong>' : ''
        }</p>
${formStart(visit, `${PAGE}/${encodeURIComponent(member.id)}/remove`, { label: 'Remove this person' })}
${field({ name: 'reason', label: 'Reason', hint: 'Optional; kept in the audit trail.', attributes: 'maxlength="500"' })}
<div class="actions"><button type="submit" class="danger">Remove ${esc(member.email)}</button><a class="button secondary" href="${PAGE}">Cancel</a></div>
</form></div>`,
      });
    },
  );

  app.post<{ Params: { id: string }; Body: ConsoleForm }>(
    '/people/:id/remove',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      const found = await personToManage(reply, visit, request.params.id, REMOVAL_REFUSALS);
      if ('sent' in found) return found.sent;
      const { member } = found;
      const reason = reasonOf(request.body.reason);
      const removed = await removeMember(
        ctx,
        ctx.clock,
        { workspaceId: visit.workspace.id, userId: member.id, from: member.role },
        (trx, removal) =>
          recordAudit(trx, auditTenant(visit), {
            actor: actorOf(visit),
            action: 'people.remove',
            record: { type: 'user', id: member.id },
            changes: { role: [removal.role, null] },
            reason,
          }),
      );
      if ('refused' in removed) return refuseChange(reply, visit, removed.refused);
      return member.id === visit.person.id
        ? redirectTo(reply, '/console/sign-in')
        : redirectTo(reply, PAGE, 'removed');
    },
  );
}
