import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { inTransaction } from '../../db/unit-of-work.js';
import {
  type CreatedKey,
  countActiveKeys,
  createKey,
  findKey,
  keyToView,
  listKeys,
  revokeKey,
} from '../api-keys/index.js';
import { SCOPE_RESOURCES, type Scope } from '../api-keys/scopes.js';
import { recordAudit } from '../audit/index.js';
import { subscriptionPlanById } from '../workspaces/subscription-plans.js';
import { lockWorkspace } from '../workspaces/workspaces.service.js';
import { esc, field, formStart, idempotencyKeyOf, notice, status, table, when } from './console.html.js';
import { type ConsoleForm, type Visit, visitIn } from './console.visit.js';
import {
  actorOf,
  auditTenant,
  type FormShown,
  fieldsRefused,
  missing,
  problemOf,
  reasonOf,
  redirectTo,
  refuse,
  sendSettings,
  settingsView,
} from './settings.common.js';

const PAGE = '/console/settings/keys';

const MESSAGES = {
  revoked: 'The key is revoked: requests with it are refused from now on.',
  already: 'That key was already revoked.',
};

const RESOURCE_NAMES: Record<(typeof SCOPE_RESOURCES)[number], string> = {
  customers: 'Customers',
  tracks: 'Plans',
  payments: 'Payments',
  reminders: 'Reminders and messages',
  reports: 'Reports and exports',
  ledger: 'Ledger',
  webhooks: 'Webhooks',
  events: 'Events',
  schedules: 'Collection schedules and obligations',
  mandates: 'Payment mandates',
  attempts: 'Collection attempts',
  account: 'Account settings and audit trail',
};

type KeyView = ReturnType<typeof keyToView>;

/**
 * Forms already answered, by person and form key, for a few minutes: a form sent twice makes one key (its
 * second answer says so rather than showing the key again).
 */
const answered = new Map<string, { keyId: string; at: number }>();
const ANSWER_KEPT_MS = 10 * 60 * 1000;
function rememberAnswer(formKey: string, keyId: string, now: number) {
  for (const [k, v] of answered) if (now - v.at > ANSWER_KEPT_MS || answered.size > 1000) answered.delete(k);
  answered.set(formKey, { keyId, at: now });
}

const scopesText = (scopes: KeyView['scopes']) => (scopes === 'all' ? 'all scopes' : scopes.join(', '));

function createForm(visit: Visit, typed: ConsoleForm = {}, errors: Record<string, string> = {}): string {
  const access = typed.access === 'all' ? 'all' : 'chosen';
  const selects = SCOPE_RESOURCES.map((resource) =>
    field({
      name: `scope_${resource}`,
      label: RESOURCE_NAMES[resource],
      value: typed[`scope_${resource}`] ?? 'none',
      options: [
        { value: 'none', label: 'No access' },
        { value: 'read', label: 'Read' },
        { value: 'write', label: 'Read and write' },
      ],
    }),
  ).join('\n');
  const radio = (value: string, label: string) =>
    `<label class="choice"><input type="radio" name="access" value="${value}"${access === value ? ' checked' : ''}> ${esc(label)}</label>`;
  return `<div class="card settings-card"><h2>Create a ${esc(visit.mode)} key</h2>
<p class="note">A ${esc(visit.mode)} key acts on ${visit.mode === 'live' ? 'live data' : 'test data only'}. The whole key is shown once, when it is made; only its hash is kept.</p>
${formStart(visit, PAGE, { label: 'Create an API key' })}
${field({ name: 'name', label: 'Name', hint: 'To recognise it in this list, such as "Shop website". Optional.', value: typed.name ?? '', attributes: 'maxlength="200" autocomplete="off"', ...(errors.name ? { error: errors.name } : {}) })}
<fieldset><legend>Access</legend>${radio('chosen', 'Only what is chosen below')}${radio('all', 'Everything (all scopes)')}${
    errors.scopes ? `<span class="field-error" id="scopes-error">${esc(errors.scopes)}</span>` : ''
  }</fieldset>
<fieldset><legend>What the key may use</legend><div class="scope-grid">${selects}</div></fieldset>
<div class="actions"><button type="submit">Create key</button></div>
</form></div>`;
}

async function keysPage(ctx: AppContext, visit: Visit, options: FormShown): Promise<string> {
  const keys = (await listKeys(ctx.db, visit.workspace.id))
    .filter((key) => key.mode === visit.mode)
    .map(keyToView)
    .reverse();
  const changing = visit.can('change_settings');
  const list = table(
    `${visit.mode === 'live' ? 'Live' : 'Test'} API keys`,
    [
      {
        head: 'Key',
        cell: (k: KeyView) =>
          `${k.name ? `${esc(k.name)}<br>` : ''}<code>${esc(k.prefix)}…</code><br><span class="note">${esc(k.id)}</span>`,
      },
      { head: 'Scopes', cell: (k: KeyView) => esc(scopesText(k.scopes)) },
      { head: 'Created', cell: (k: KeyView) => when(visit, k.createdAt) },
      {
        head: 'Status',
        cell: (k: KeyView) =>
          k.revokedAt ? `${status('revoked')}<br>${when(visit, k.revokedAt)}` : status('active'),
      },
      ...(changing
        ? [
            {
              head: 'Revoke',
              cell: (k: KeyView) =>
                k.revokedAt
                  ? ''
                  : `<a href="${PAGE}/${encodeURIComponent(k.id)}/revoke" aria-label="Revoke ${esc(k.prefix)}…">Revoke</a>`,
            },
          ]
        : []),
    ],
    keys,
    `No ${visit.mode} keys yet.`,
  );
  return `${notice(options.done, MESSAGES)}${problemOf(options.error, { name: 'Name', scopes: 'Access' })}<p class="note">The keys of ${
    visit.mode === 'live' ? 'live' : 'test'
  } mode; switch mode to see the others.</p>${list}${changing ? createForm(visit, options.typed, options.errors) : ''}`;
}

/** The scopes a form asks for: all, the chosen ones, or a problem. */
function scopesOf(form: ConsoleForm): 'all' | Scope[] | null {
  if (form.access === 'all') return 'all';
  const scopes: Scope[] = [];
  for (const resource of SCOPE_RESOURCES) {
    const level = form[`scope_${resource}`];
    if (level === 'read' || level === 'write') scopes.push(`${resource}:${level}`);
  }
  return scopes.length > 0 ? scopes : null;
}

function createdPage(created: CreatedKey, name: string | null): string {
  const scopes = created.scopes === 'all' ? 'all scopes' : created.scopes.join(', ');
  return `<div class="notice" role="status">The key is made.</div>
<div class="card settings-card"><h2>Your new key</h2>
<p><strong>Copy it now: it is shown only this once.</strong> Only its hash is kept, so no one can show it again; if it is lost, revoke it and make another.</p>
<p><label for="new-key">API key</label><input id="new-key" class="secret" type="text" readonly value="${esc(created.key)}"></p>
<dl class="facts"><dt>Name</dt><dd>${name ? esc(name) : '<span class="note">none</span>'}</dd><dt>Id</dt><dd>${esc(created.id)}</dd><dt>Mode</dt><dd>${esc(created.mode)}</dd><dt>Scopes</dt><dd>${esc(scopes)}</dd></dl>
<p>Use it as the header <code>Authorization: Bearer</code> followed by the key.</p>
<p><a href="${PAGE}">Back to the keys</a></p></div>`;
}

export function keysSettings(app: FastifyInstance, ctx: AppContext) {
  const show = settingsView('API keys', 'keys', (visit, options: FormShown) => keysPage(ctx, visit, options));

  app.get<{ Querystring: { done?: string } }>('/keys', { schema: { hide: true } }, async (request, reply) =>
    show(reply, visitIn(request), { done: request.query.done }),
  );

  app.post<{ Body: ConsoleForm }>('/keys', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('change_settings'))
      return refuse(reply, visit, 'keys', 'Only an owner or admin makes API keys.');
    const form = request.body;
    const formKey = idempotencyKeyOf(form);
    const seen = formKey ? answered.get(`${visit.person.id}:${formKey}`) : undefined;
    if (seen)
      return show(
        reply,
        visit,
        {
          error: {
            code: 'idempotency_conflict',
            message: `This form was sent already: it made key ${seen.keyId}, shown once then. Nothing else was made.`,
          },
        },
        409,
      );
    const name = (form.name ?? '').trim();
    const scopes = scopesOf(form);
    const errors: Record<string, string> = {};
    if (name.length > 200) errors.name = 'must be at most 200 characters';
    if (!scopes) errors.scopes = 'choose at least one thing the key may use, or everything';
    if (!scopes || errors.name)
      return show(
        reply,
        visit,
        {
          error: fieldsRefused('No key was made: correct the fields named below.', errors),
          typed: form,
          errors,
        },
        422,
      );
    const workspaceId = visit.workspace.id;
    const made = await inTransaction(ctx, null, async (trx) => {
      const workspace = await lockWorkspace(trx, ctx.dialect, workspaceId);
      const limit = subscriptionPlanById(workspace?.subscription_plan ?? '').limits.apiKeys;
      if ((await countActiveKeys(trx, workspaceId)) >= limit) return { limit };
      const created = await createKey(trx, ctx.clock, {
        workspaceId,
        mode: visit.mode,
        scopes,
        ...(name ? { name } : {}),
      });
      await recordAudit(trx, auditTenant(visit), {
        actor: actorOf(visit),
        action: 'api-keys.create',
        record: { type: 'apiKey', id: created.id },
        changes: {
          name: [null, name || null],
          mode: [null, created.mode],
          prefix: [null, created.prefix],
          scopes: [null, created.scopes],
        },
      });
      return { created };
    });
    if ('limit' in made)
      return show(
        reply,
        visit,
        {
          error: {
            code: 'invalid_state',
            message: `The workspace has its plan's limit of ${made.limit} active API keys: revoke one first.`,
          },
        },
        409,
      );
    if (formKey) rememberAnswer(`${visit.person.id}:${formKey}`, made.created.id, Date.now());
    return sendSettings(
      reply,
      visit,
      { title: 'API key made', page: 'keys', body: createdPage(made.created, name || null) },
      201,
    );
  });

  /** The key of this workspace and mode to revoke, for an owner or admin; otherwise the refusal is sent. */
  async function keyToRevoke(reply: FastifyReply, visit: Visit, id: string) {
    if (!visit.can('change_settings'))
      return { sent: refuse(reply, visit, 'keys', 'Only an owner or admin revokes API keys.') };
    const key = await findKey(ctx.db, id);
    if (!key || key.workspace_id !== visit.workspace.id || key.mode !== visit.mode)
      return { sent: missing(reply, visit, 'keys', 'API key') };
    return { key };
  }

  app.get<{ Params: { id: string } }>(
    '/keys/:id/revoke',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      const found = await keyToRevoke(reply, visit, request.params.id);
      if ('sent' in found) return found.sent;
      const { key } = found;
      if (key.revoked_at) return redirectTo(reply, PAGE, 'already');
      const label = `${key.name ? `${key.name} ` : ''}(${key.prefix}…)`;
      return sendSettings(reply, visit, {
        title: 'Revoke an API key',
        page: 'keys',
        body: `<div class="card settings-card"><p>Revoke the key <strong>${esc(label)}</strong>? Every request with it is refused from then on (401), and this cannot be undone.</p>
${formStart(visit, `${PAGE}/${encodeURIComponent(key.id)}/revoke`, { label: 'Revoke this key' })}
${field({ name: 'reason', label: 'Reason', hint: 'Optional; kept in the audit trail.', attributes: 'maxlength="500"' })}
<div class="actions"><button type="submit" class="danger">Revoke key</button><a class="button secondary" href="${PAGE}">Cancel</a></div>
</form></div>`,
      });
    },
  );

  app.post<{ Params: { id: string }; Body: ConsoleForm }>(
    '/keys/:id/revoke',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      const found = await keyToRevoke(reply, visit, request.params.id);
      if ('sent' in found) return found.sent;
      const { key } = found;
      const reason = reasonOf(request.body.reason);
      const revoked = await inTransaction(ctx, null, async (trx) => {
        const done = await revokeKey({ db: trx, clock: ctx.clock, keys: ctx.keys }, key.id);
        if (done)
          await recordAudit(trx, auditTenant(visit), {
            actor: actorOf(visit),
            action: 'api-keys.revoke',
            record: { type: 'apiKey', id: key.id },
            changes: { revokedAt: [null, done.revoked_at] },
            reason,
          });
        return done;
      });
      // Read again on its next use here, now that the revocation is committed.
      ctx.keys.forgetWorkspace(visit.workspace.id);
      return redirectTo(reply, PAGE, revoked ? 'revoked' : 'already');
    },
  );
}
