import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import type { ApiError } from './console.api.js';
import { esc, field, formStart, notice } from './console.html.js';
import { type ConsoleForm, type Visit, visitIn } from './console.visit.js';
import { failed, problemOf, redirectTo, refuse, sendSettings } from './settings.common.js';

const PAGE = '/console/settings/workspace';

/** The workspace's settings as `GET /account` shows them (the fields this page uses). */
interface Account {
  name: string;
  currency: string;
  timeZone: string;
  country: string | null;
  supportEmail: string | null;
  supportPhone: string | null;
  brandColor: string | null;
}

type Values = Record<keyof Account, string>;

const LABELS: Record<keyof Account, string> = {
  name: 'Business name',
  currency: 'Currency',
  timeZone: 'Time zone',
  country: 'Country',
  supportEmail: 'Support e-mail',
  supportPhone: 'Support phone',
  brandColor: 'Colour',
};

const MESSAGES = {
  saved: 'The workspace settings are saved.',
  unchanged: 'Nothing was changed: the form held the settings as they were.',
};

const valuesOf = (account: Account): Values => ({
  name: account.name,
  currency: account.currency,
  timeZone: account.timeZone,
  country: account.country ?? '',
  supportEmail: account.supportEmail ?? '',
  supportPhone: account.supportPhone ?? '',
  brandColor: account.brandColor ?? '',
});

function facts(account: Account): string {
  const row = (label: string, value: string | null) =>
    `<dt>${esc(label)}</dt><dd>${value ? esc(value) : '<span class="note">not set</span>'}</dd>`;
  return `<div class="card settings-card"><dl class="facts">${[
    row('Name', account.name),
    row('Currency', account.currency),
    row('Time zone', account.timeZone),
    row('Country', account.country),
    row('Support e-mail', account.supportEmail),
    row('Support phone', account.supportPhone),
    row('Colour', account.brandColor),
  ].join('')}</dl></div>`;
}

function form(visit: Visit, values: Values, error: ApiError | null = null): string {
  const errors = error?.details?.fields ?? {};
  const input = (
    name: keyof Values,
    label: string,
    extra: { type?: string; hint?: string; required?: boolean; attributes?: string } = {},
  ) =>
    field({ name, label, value: values[name], ...(errors[name] ? { error: errors[name] } : {}), ...extra });
  return `${problemOf(error, LABELS)}<div class="card settings-card">${formStart(visit, PAGE, { label: 'Workspace settings' })}
${input('name', 'Business name', { required: true, hint: 'What payers see, 1 to 200 characters.', attributes: 'maxlength="200" autocomplete="organization"' })}
${input('currency', 'Currency', { required: true, hint: 'ISO 4217 code such as NGN or USD: the currency of plans made from now on.', attributes: 'maxlength="3" autocomplete="off"' })}
${input('timeZone', 'Time zone', { required: true, hint: 'IANA name such as Africa/Lagos: the calendar of due dates, reports and quiet hours made from now on.', attributes: 'maxlength="64" autocomplete="off"' })}
${input('country', 'Country', { hint: 'ISO 3166-1 code such as NG: phone numbers written without +country are read in it.', attributes: 'maxlength="2" autocomplete="off"' })}
${input('supportEmail', 'Support e-mail', { type: 'email', hint: 'How payers reach you by e-mail; empty for none.', attributes: 'maxlength="254" autocomplete="off"' })}
${input('supportPhone', 'Support phone', { type: 'tel', hint: 'How payers reach you by phone; empty for none.', attributes: 'maxlength="32" autocomplete="off"' })}
${input('brandColor', 'Colour', { hint: 'Of your pages and this console, written #rrggbb such as #0a7d4f; empty for the standard blue.', attributes: 'maxlength="7" autocomplete="off"' })}
<div class="actions"><button type="submit">Save settings</button></div>
</form></div>`;
}

/** What the form changes, in the API's terms: only what differs from the settings as they are. */
function changesOf(form: ConsoleForm, account: Account): Record<string, string | null> {
  const text = (name: keyof Values) => (form[name] ?? '').trim();
  const wanted: Record<keyof Values, string | null> = {
    name: form.name ?? '',
    currency: text('currency').toUpperCase(),
    timeZone: text('timeZone'),
    country: text('country').toUpperCase(),
    supportEmail: text('supportEmail') || null,
    supportPhone: text('supportPhone') || null,
    brandColor: text('brandColor').toLowerCase() || null,
  };
  const current = valuesOf(account);
  const changes: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(wanted) as [keyof Values, string | null][]) {
    if ((value ?? '') === current[name]) continue;
    // A country is never cleared, only changed: an empty one leaves it as it is.
    if (name === 'country' && value === '') continue;
    changes[name] = value;
  }
  return changes;
}

export function workspaceSettings(app: FastifyInstance, _ctx: AppContext) {
  app.get<{ Querystring: { done?: string } }>(
    '/workspace',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      const account = await visit.api.get<Account>('/account');
      if (!account.ok) return failed(reply, visit, 'workspace', account.status, account.error);
      const body = visit.can('change_settings') ? form(visit, valuesOf(account.data)) : facts(account.data);
      return sendSettings(reply, visit, {
        title: 'Workspace settings',
        page: 'workspace',
        body: `${notice(request.query.done, MESSAGES)}<p class="note">One set of settings for test and live mode alike.</p>${body}`,
      });
    },
  );

  app.post<{ Body: ConsoleForm }>('/workspace', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('change_settings'))
      return refuse(reply, visit, 'workspace', 'Only an owner or admin changes the workspace settings.');
    const account = await visit.api.get<Account>('/account');
    if (!account.ok) return failed(reply, visit, 'workspace', account.status, account.error);
    const changes = changesOf(request.body, account.data);
    if (Object.keys(changes).length === 0) return redirectTo(reply, PAGE, 'unchanged');
    const saved = await visit.api.send<Account>('PATCH', '/account', changes);
    if (saved.ok) return redirectTo(reply, PAGE, 'saved');
    const typed = Object.fromEntries(
      Object.keys(valuesOf(account.data)).map((name) => [name, request.body[name] ?? '']),
    ) as Values;
    return sendSettings(
      reply,
      visit,
      { title: 'Workspace settings', page: 'workspace', body: form(visit, typed, saved.error) },
      saved.status,
    );
  });
}
