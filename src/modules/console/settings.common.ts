import type { FastifyReply } from 'fastify';
import type { Tenant } from '../../lib/tenant.js';
import type { Role } from '../people/index.js';
import type { ApiError } from './console.api.js';
import { esc, problem } from './console.html.js';
import { sendPage } from './console.layout.js';
import type { ConsoleForm, Visit } from './console.visit.js';

/** The pages of the settings, in the order of their menu. */
export const SETTINGS_PAGES = [
  {
    page: 'workspace',
    label: 'Workspace',
    about: 'Name, currency, time zone, country, support contact and colour.',
  },
  { page: 'people', label: 'People and roles', about: 'Who works in this workspace, and what each may do.' },
  { page: 'sessions', label: 'Sessions', about: 'Who is signed in; end a session.' },
  { page: 'keys', label: 'API keys', about: 'Keys for your own systems to use the API.' },
  { page: 'webhooks', label: 'Webhooks', about: 'Where events are sent, and what became of each delivery.' },
  { page: 'providers', label: 'Providers', about: 'Payment and message providers, and their state.' },
  { page: 'exports', label: 'Reports and exports', about: 'Reports and records as files to download.' },
  { page: 'test-clock', label: 'Test clock', about: 'Move the time of test mode forward.' },
] as const;

export type SettingsPage = (typeof SETTINGS_PAGES)[number]['page'] | 'index';

export const settingsPath = (page: SettingsPage) =>
  page === 'index' ? '/console/settings' : `/console/settings/${page}`;

function menu(current: SettingsPage): string {
  const items = SETTINGS_PAGES.map(
    (p) =>
      `<li><a href="${settingsPath(p.page)}"${p.page === current ? ' aria-current="page"' : ''}>${esc(p.label)}</a></li>`,
  ).join('');
  return `<nav class="settings-menu" aria-label="Settings pages"><ul><li><a href="/console/settings"${
    current === 'index' ? ' aria-current="page"' : ''
  }>All settings</a></li>${items}</ul></nav>`;
}

export interface SettingsFrame {
  title: string;
  page: SettingsPage;
  body: string;
}

/** A page of the settings: the console's frame, the settings menu, then the page. */
export function sendSettings(reply: FastifyReply, visit: Visit, frame: SettingsFrame, status = 200) {
  return sendPage(
    reply,
    visit,
    { title: frame.title, section: 'settings', body: `${menu(frame.page)}\n${frame.body}` },
    status,
  );
}

/** 403: what the person's role does not allow, said plainly, with the way back. */
export function refuse(reply: FastifyReply, visit: Visit, page: SettingsPage, message: string) {
  return sendSettings(
    reply,
    visit,
    {
      title: 'Not allowed',
      page,
      body: `<div class="problem" role="alert"><strong>${esc(message)}</strong></div><p><a href="${settingsPath(page)}">Back</a></p>`,
    },
    403,
  );
}

/** 404: no such record here, with a link back to its list. */
export function missing(reply: FastifyReply, visit: Visit, page: SettingsPage, what: string) {
  return sendSettings(
    reply,
    visit,
    {
      title: 'Not found',
      page,
      body: `<p>There is no such ${esc(what)} in this workspace. <a href="${settingsPath(page)}">Back to the list</a>.</p>`,
    },
    404,
  );
}

/** A page the API would not give: its refusal in words, with its status. */
export function failed(
  reply: FastifyReply,
  visit: Visit,
  page: SettingsPage,
  status: number,
  error: ApiError,
) {
  return sendSettings(
    reply,
    visit,
    {
      title: 'Could not show this page',
      page,
      body: `${problem(error)}<p><a href="${settingsPath(page)}">Try again</a></p>`,
    },
    status,
  );
}

/** What a settings page shows besides its records: what was just done, or a refused form as it was typed. */
export interface FormShown {
  done?: string;
  error?: ApiError;
  typed?: ConsoleForm;
  errors?: Record<string, string>;
}

/** A page the API would not give: its status and refusal. */
export interface Failure {
  status: number;
  error: ApiError;
}

/** A record the API would not give: 404 as no such `what` here, any other refusal in its words. */
export function notGiven(
  reply: FastifyReply,
  visit: Visit,
  page: SettingsPage,
  what: string,
  answer: Failure,
) {
  return answer.status === 404
    ? missing(reply, visit, page, what)
    : failed(reply, visit, page, answer.status, answer.error);
}

/**
 * How a settings page is sent: as `draw` makes it for what was asked (what `?done=` names as done, or a refused
 * form again with what was typed), with `status`; a page the API would not give answers with its refusal.
 */
export function settingsView<Options>(
  title: string,
  page: SettingsPage,
  draw: (visit: Visit, options: Options) => Promise<string | Failure>,
) {
  return async (reply: FastifyReply, visit: Visit, options: Options, status = 200) => {
    const drawn = await draw(visit, options);
    if (typeof drawn !== 'string') return failed(reply, visit, page, drawn.status, drawn.error);
    return sendSettings(reply, visit, { title, page, body: drawn }, status);
  };
}

/** A form refused before the API is asked: `message` at the top, each field's problem beside it. */
export const fieldsRefused = (message: string, fields: Record<string, string>): ApiError => ({
  code: 'validation_error',
  message,
  details: { fields },
});

/** 303 to `path`, with the notice that `done` names when there is one. */
export const redirectTo = (reply: FastifyReply, path: string, done?: string) =>
  reply
    .code(303)
    .header('location', done ? `${path}?done=${done}` : path)
    .send();

/** The tenant a console-only change is recorded under in the audit trail: the visit's workspace, mode and time. */
export function auditTenant(visit: Visit): Tenant {
  return { workspaceId: visit.workspace.id, mode: visit.mode, clock: { now: () => visit.now } };
}

export const actorOf = (visit: Visit) => ({ type: 'user' as const, id: visit.person.id });

export const ROLE_NAMES: Record<Role, string> = {
  owner: 'Owner',
  admin: 'Admin',
  collector: 'Collector',
  viewer: 'Viewer',
};

/** What each role may do, as the people page explains it. */
export const ROLE_ABOUT: Record<Role, string> = {
  owner: 'everything, including owners and the workspace itself',
  admin: 'everything but owners: cannot invite, promote, demote or remove an owner',
  collector:
    'records payments, promises to pay and disputes, sends reminders and adds notes; no write-offs, waivers, keys, webhooks or settings',
  viewer: 'looks at everything but never changes anything, and never sees a secret',
};

/** A reason the person gave (for the audit trail): trimmed, at most 500 characters, null when empty. */
export function reasonOf(text: string | undefined): string | null {
  const reason = (text ?? '').trim().slice(0, 500);
  return reason === '' ? null : reason;
}

/**
 * The API's refusal at the top of a form, its fields named as the form labels them (the API's names beside
 * their fields stay as they are); a refusal of fields says that nothing changed.
 */
export function problemOf(
  error: ApiError | null | undefined,
  labels: Readonly<Record<string, string>>,
): string {
  const fields = error?.details?.fields;
  if (!error || !fields || Object.keys(fields).length === 0) return problem(error);
  const named = Object.fromEntries(
    Object.entries(fields).map(([name, text]) => [labels[name] ?? name, text]),
  );
  return problem({
    ...error,
    message:
      error.code === 'validation_error'
        ? 'Nothing was changed: correct the fields named below.'
        : error.message,
    details: { ...error.details, fields: named },
  });
}
