import assert from 'node:assert/strict';
import type { Role } from '../../src/modules/people/index.js';
import { addPerson, formTokenOf } from '../../src/modules/people/index.js';
import type { TestApp } from './app.js';
import { newWorkspace, type TestWorkspace } from './factories.js';

export const PASSWORD = 'correct horse battery';

/** A person of the console, signed in: their cookie (`name=value`) and the form token their forms carry. */
export interface ConsolePerson {
  id: string;
  email: string;
  role: Role;
  workspaceId: string;
  cookie: string;
  formToken: string;
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/**
 * A person with `role` in a workspace (a new one unless given), who set their password through their one-time
 * link and so is signed in, in test mode.
 */
export async function consolePerson(
  t: TestApp,
  role: Role,
  workspace?: TestWorkspace,
): Promise<ConsolePerson & { workspace: TestWorkspace }> {
  const ws = workspace ?? (await newWorkspace(t));
  const email = `${role}-${Math.random().toString(36).slice(2)}@example.com`;
  const { user, token } = await addPerson(t.ctx.db, t.clock, { workspaceId: ws.workspaceId, email, role });
  const set = await t.app.inject({
    method: 'POST',
    url: `/console/set-password/${token}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: form({ password: PASSWORD }),
  });
  assert.equal(set.statusCode, 303, set.body);
  const cookie = String(set.headers['set-cookie']).split(';')[0] as string;
  const value = cookie.slice(cookie.indexOf('=') + 1);
  return {
    id: user.id,
    email,
    role,
    workspaceId: ws.workspaceId,
    cookie,
    formToken: formTokenOf(value),
    workspace: ws,
  };
}

/** A console page as the person sees it. */
export function consoleGet(t: TestApp, person: ConsolePerson, path: string) {
  return t.app.inject({ method: 'GET', url: path, headers: { cookie: person.cookie } });
}

/** A console form posted by the person (their form token added unless given). */
export function consolePost(
  t: TestApp,
  person: ConsolePerson,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return t.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: person.cookie, ...headers },
    payload: form({ form_token: person.formToken, ...fields }),
  });
}
