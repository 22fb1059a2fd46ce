import { createHash, randomBytes } from 'node:crypto';
import type { Db, DbOrTrx } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { isEmail } from '../../lib/email.js';
import { newId } from '../../lib/ids.js';
import { hashPassword, passwordProblem, verifyPassword } from '../../lib/passwords.js';
import type { Mode } from '../../lib/tenant.js';
import { ROLES, type Role, type SessionsTable, type UsersTable } from './people.table.js';

const HOUR_MS = 60 * 60 * 1000;
/** A link to set a password works once, for 24 hours. */
export const PASSWORD_LINK_MS = 24 * HOUR_MS;
/** A session ends after 12 idle hours, and 7 days after sign-in whatever happens. */
export const SESSION_IDLE_MS = 12 * HOUR_MS;
export const SESSION_MAX_MS = 7 * 24 * HOUR_MS;
/** Failed sign-ins an account may have in 15 minutes before it is refused for the rest of them. */
export const FAILURES_ALLOWED = 5;
const FAILURE_WINDOW_MS = 15 * 60 * 1000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const token = (prefix: string) => `${prefix}_${randomBytes(32).toString('base64url')}`;
const later = (at: Date, ms: number) => new Date(at.getTime() + ms).toISOString();

export const isRole = (role: string): role is Role => (ROLES as readonly string[]).includes(role);

export class PeopleError extends Error {}

let unknownHash: Promise<string> | undefined;
/** A hash of no one's password, checked against when the e-mail is unknown. */
const unknownAccountHash = () => {
  unknownHash ??= hashPassword(randomBytes(16).toString('hex'));
  return unknownHash;
};

/**
 * A person of a workspace with a role (the person made when the e-mail is new), and a one-time link to set their
 * password. Returns the link's token.
 */
export async function addPerson(
  db: Db,
  clock: Clock,
  input: { workspaceId: string; email: string; role: Role; name?: string },
): Promise<{ user: UsersTable; token: string }> {
  return db.transaction().execute((trx) => addPersonIn(trx, clock, input));
}

/** `addPerson` inside the caller's transaction (the first start makes its owner with its workspace). */
export async function addPersonIn(
  trx: DbOrTrx,
  clock: Clock,
  input: { workspaceId: string; email: string; role: Role; name?: string },
): Promise<{ user: UsersTable; token: string }> {
  const email = input.email.trim().toLowerCase();
  if (!isEmail(email)) throw new PeopleError('--email: must be an e-mail address such as owner@example.com');
  const at = clock.now();
  const now = at.toISOString();
  let user = await trx.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  if (!user) {
    user = {
      id: newId('user', at),
      email,
      name: input.name?.trim() || null,
      password_hash: null,
      created_at: now,
      updated_at: now,
    };
    await trx.insertInto('users').values(user).execute();
  }
  await trx
    .insertInto('memberships')
    .values({ user_id: user.id, workspace_id: input.workspaceId, role: input.role, created_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'workspace_id']).doUpdateSet({ role: input.role }))
    .execute();
  const link = token('pw');
  await trx
    .insertInto('password_tokens')
    .values({
      token_hash: sha256(link),
      user_id: user.id,
      expires_at: later(at, PASSWORD_LINK_MS),
      used_at: null,
      created_at: now,
    })
    .execute();
  return { user, token: link };
}

/** The person a set-password link belongs to, while it works (unused, not expired). */
export async function personOfLink(db: DbOrTrx, clock: Clock, link: string) {
  const row = await db
    .selectFrom('password_tokens')
    .innerJoin('users', 'users.id', 'password_tokens.user_id')
    .select(['users.id', 'users.email', 'password_tokens.expires_at', 'password_tokens.used_at'])
    .where('password_tokens.token_hash', '=', sha256(link))
    .executeTakeFirst();
  if (!row || row.used_at !== null || row.expires_at <= clock.now().toISOString()) return undefined;
  return { id: row.id, email: row.email };
}

/** Sets the password of a link's person, once; the link stops working. Returns the person, or a problem. */
export async function setPasswordByLink(
  db: Db,
  clock: Clock,
  link: string,
  password: string,
): Promise<{ user: { id: string; email: string } } | { problem: string }> {
  const problem = passwordProblem(password);
  if (problem) return { problem: `The password ${problem}.` };
  const person = await personOfLink(db, clock, link);
  if (!person) return { problem: 'This link has been used or has expired. Ask an owner for a new one.' };
  const hash = await hashPassword(password);
  const now = clock.now().toISOString();
  const used = await db
    .updateTable('password_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', sha256(link))
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(used.numUpdatedRows) === 0)
    return { problem: 'This link has been used. Ask an owner for a new one.' };
  await db
    .updateTable('users')
    .set({ password_hash: hash, updated_at: now })
    .where('id', '=', person.id)
    .execute();
  return { user: person };
}

/** The workspaces a person belongs to, with their role in each, oldest membership first. */
export function membershipsOf(db: DbOrTrx, userId: string) {
  return db
    .selectFrom('memberships')
    .innerJoin('workspaces', 'workspaces.id', 'memberships.workspace_id')
    .select(['memberships.workspace_id', 'memberships.role', 'workspaces.name'])
    .where('memberships.user_id', '=', userId)
    .orderBy('memberships.created_at')
    .execute();
}

/**
 * Signs a person in by e-mail and password: a new session in their first workspace, test mode, whose token goes
 * in the cookie (only its hash is kept). An account with too many failed tries lately is refused without its
 * password being checked; the answer never says whether the e-mail is known.
 */
export async function signIn(
  db: Db,
  clock: Clock,
  email: string,
  password: string,
): Promise<{ token: string; session: SessionsTable } | { refused: 'wrong' | 'locked' }> {
  const address = email.trim().toLowerCase();
  const at = clock.now();
  const since = new Date(at.getTime() - FAILURE_WINDOW_MS).toISOString();
  const failures = await db
    .selectFrom('sign_in_failures')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('email', '=', address)
    .where('failed_at', '>', since)
    .executeTakeFirst();
  if (Number(failures?.count ?? 0) >= FAILURES_ALLOWED) return { refused: 'locked' };
  const user = await db.selectFrom('users').selectAll().where('email', '=', address).executeTakeFirst();
  const [membership] = user ? await membershipsOf(db, user.id) : [];
  // An unknown account costs the same hashing as a known one: the time taken says nothing of which it is.
  const good = await verifyPassword(password, user?.password_hash ?? (await unknownAccountHash()));
  const known = user?.password_hash ? good : false;
  if (!user || !known || !membership) {
    await db.insertInto('sign_in_failures').values({ email: address, failed_at: at.toISOString() }).execute();
    return { refused: 'wrong' };
  }
  const session = await startSession(db, clock, user.id, membership.workspace_id, 'test');
  return session;
}

export async function startSession(
  db: DbOrTrx,
  clock: Clock,
  userId: string,
  workspaceId: string,
  mode: Mode,
) {
  const now = clock.now().toISOString();
  const cookie = token('ses');
  const session: SessionsTable = {
    token_hash: sha256(cookie),
    user_id: userId,
    workspace_id: workspaceId,
    mode,
    created_at: now,
    last_seen_at: now,
    ended_at: null,
  };
  await db.insertInto('sessions').values(session).execute();
  return { token: cookie, session };
}

/**
 * The live session a cookie's token names, its last use moved to now; undefined once it was ended, has been idle
 * 12 hours, or is 7 days old.
 */
export async function sessionOf(db: DbOrTrx, clock: Clock, cookie: string) {
  const at = clock.now();
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .innerJoin('memberships', (join) =>
      join
        .onRef('memberships.user_id', '=', 'sessions.user_id')
        .onRef('memberships.workspace_id', '=', 'sessions.workspace_id'),
    )
    .select([
      'sessions.token_hash',
      'sessions.user_id',
      'sessions.workspace_id',
      'sessions.mode',
      'sessions.created_at',
      'sessions.last_seen_at',
      'sessions.ended_at',
      'users.email',
      'users.name',
      'memberships.role',
    ])
    .where('sessions.token_hash', '=', sha256(cookie))
    .executeTakeFirst();
  if (!row || row.ended_at !== null) return undefined;
  if (Date.parse(row.last_seen_at) + SESSION_IDLE_MS <= at.getTime()) return undefined;
  if (Date.parse(row.created_at) + SESSION_MAX_MS <= at.getTime()) return undefined;
  await db
    .updateTable('sessions')
    .set({ last_seen_at: at.toISOString() })
    .where('token_hash', '=', row.token_hash)
    .execute();
  return row;
}

/** Ends a session: its cookie no longer signs anyone in, even if kept. */
export async function endSession(db: DbOrTrx, clock: Clock, cookie: string): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ ended_at: clock.now().toISOString() })
    .where('token_hash', '=', sha256(cookie))
    .where('ended_at', 'is', null)
    .execute();
}

/** A form's cross-site token for a session: what a page of another site cannot know. */
export function formTokenOf(cookie: string): string {
  return sha256(`form:${cookie}`).slice(0, 32);
}

/**
 * Moves a live session to another of the person's workspaces or to the other mode; false when the person does
 * not belong to that workspace (or the session has ended).
 */
export async function switchSession(
  db: DbOrTrx,
  cookie: string,
  to: { workspaceId: string; mode: Mode },
): Promise<boolean> {
  const member = await db
    .selectFrom('sessions')
    .innerJoin('memberships', 'memberships.user_id', 'sessions.user_id')
    .select('memberships.workspace_id')
    .where('sessions.token_hash', '=', sha256(cookie))
    .where('sessions.ended_at', 'is', null)
    .where('memberships.workspace_id', '=', to.workspaceId)
    .executeTakeFirst();
  if (!member) return false;
  const moved = await db
    .updateTable('sessions')
    .set({ workspace_id: to.workspaceId, mode: to.mode })
    .where('token_hash', '=', sha256(cookie))
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) > 0;
}
