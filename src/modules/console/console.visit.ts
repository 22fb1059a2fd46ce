import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { Mode } from '../../lib/tenant.js';
import {
  type Ability,
  authOfPerson,
  can,
  formTokenOf,
  membershipsOf,
  type Role,
  sessionOf,
} from '../people/index.js';
import { findWorkspace } from '../workspaces/workspaces.service.js';
import { type ConsoleApi, consoleApi } from './console.api.js';

export const SESSION_COOKIE = 'paytrack_session';

/** A signed-in person's request: who, in which workspace and mode, what they may do, and the API as them. */
export interface Visit {
  cookie: string;
  formToken: string;
  person: { id: string; email: string; name: string | null; role: Role };
  workspace: {
    id: string;
    name: string;
    currency: string;
    timeZone: string;
    country: string | null;
    brandColor: string | null;
  };
  mode: Mode;
  workspaces: { id: string; name: string; role: Role }[];
  /** Now on the tenant's clock (the test clock in test mode). */
  now: Date;
  api: ConsoleApi;
  can(ability: Ability): boolean;
}

export function cookieOf(request: FastifyRequest): string | null {
  const header = request.headers.cookie ?? '';
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE) return value.join('=') || null;
  }
  return null;
}

/** The visit of a request with a live session; undefined without one. */
export async function visitOf(
  app: FastifyInstance,
  ctx: AppContext,
  request: FastifyRequest,
): Promise<Visit | undefined> {
  const cookie = cookieOf(request);
  const session = cookie ? await sessionOf(ctx.db, ctx.clock, cookie) : undefined;
  if (!cookie || !session) return undefined;
  const [workspace, memberships, auth] = await Promise.all([
    findWorkspace(ctx.db, session.workspace_id),
    membershipsOf(ctx.db, session.user_id),
    authOfPerson(ctx.db, ctx.clock, {
      userId: session.user_id,
      workspaceId: session.workspace_id,
      mode: session.mode,
      role: session.role,
    }),
  ]);
  if (!workspace || !auth) return undefined;
  const role = session.role;
  return {
    cookie,
    formToken: formTokenOf(cookie),
    person: { id: session.user_id, email: session.email, name: session.name, role },
    workspace: {
      id: workspace.id,
      name: workspace.name,
      currency: workspace.default_currency,
      timeZone: workspace.timezone,
      country: workspace.country,
      brandColor: workspace.brand_color,
    },
    mode: session.mode,
    workspaces: memberships.map((m) => ({ id: m.workspace_id, name: m.name, role: m.role })),
    now: auth.clock.now(),
    api: consoleApi(app, auth),
    can: (ability) => can(role, ability),
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    consoleVisit: Visit | null;
  }
}

/** The signed-in person of a console page (every page but sign-in's has one: the plugin sees to it). */
export function visitIn(request: FastifyRequest): Visit {
  if (!request.consoleVisit) throw new Error('a console page was reached without a session');
  return request.consoleVisit;
}

/** A posted console form, as read from its urlencoded body. */
export type ConsoleForm = Record<string, string | undefined>;
