import { randomBytes } from 'node:crypto';
import type { DialectName } from '../../db/dialect.js';
import type { Db, DbOrTrx, Trx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import type { Clock } from '../../lib/clock.js';
import { isEmail } from '../../lib/email.js';
import { newId } from '../../lib/ids.js';
import { randomToken, sha256 } from '../../lib/link-tokens.js';
import { hashPassword, passwordProblem, verifyPassword } from '../../lib/passwords.js';
import type { Mode } from '../../lib/tenant.js';
import { lockWorkspace } from '../workspaces/workspaces.service.js';
import { ROLES, type Role, type SessionsTable, type UsersTable } from './people.table.js';

const HOUR_MS = 60 * 60 * 1000;
/** A link to set a password works once, for 24 hours. */
export const PASSWORD_LINK_MS = 24 * HOUR_MS;
/** A session ends after 12 idle hours, and 7 days after sign-in whatever happens. */
export const SESSION_IDLE_MS = 12 * HOUR_MS;
/** How often a session's last use is written down. */
const LAST_SEEN_EVERY_MS = 60_000;
export const SESSION_MAX_MS = 7 * 24 * HOUR_MS;
/** Failed sign-ins an account may have in 15 minutes before it is refused for the rest of them. */
export const FAILURES_ALLOWED = 5;
const FAILURE_WINDOW_MS = 15 * 60 * 1000;

const token = randomToken;
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
  return { user, token: await newLink(trx, user.id, at) };
}

/** A one-time link to set a person's password (24 hours); only its hash is kept. */
async function newLink(trx: DbOrTrx, userId: string, at: Date): Promise<string> {
  const link = token('pw');
  await trx
    .insertInto('password_tokens')
    .values({
      token_hash: sha256(link),
      user_id: userId,
      expires_at: later(at, PASSWORD_LINK_MS),
      used_at: null,
      created_at: at.toISOString(),
    })
    .execute();
  return link;
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

/** Sessions with their person and that person's role in the session's workspace. */
function sessionsQuery(db: DbOrTrx) {
  return db
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
    ]);
}

/**
 * The live session a cookie's token names, its last use moved to now (written at most once a minute); undefined once it was ended, has been idle
 * 12 hours, or is 7 days old.
 */
export async function sessionOf(db: DbOrTrx, clock: Clock, cookie: string) {
  const at = clock.now();
  const row = await sessionsQuery(db).where('sessions.token_hash', '=', sha256(cookie)).executeTakeFirst();
  if (!row || row.ended_at !== null) return undefined;
  if (Date.parse(row.last_seen_at) + SESSION_IDLE_MS <= at.getTime()) return undefined;
  if (Date.parse(row.created_at) + SESSION_MAX_MS <= at.getTime()) return undefined;
  // Idle expiry counts in hours: a write a minute is enough, and a page's reads do not each wait on one.
  if (Date.parse(row.last_seen_at) + LAST_SEEN_EVERY_MS <= at.getTime())
    await db
      .updateTable('sessions')
      .set({ last_seen_at: at.toISOString() })
      .where('token_hash', '=', row.token_hash)
      .where('ended_at', 'is', null)
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

// The people of a workspace as its owners and admins manage them in the console's settings: who belongs, with
// which role, their invitations, and their sessions. The console checks who may do what; these keep the
// workspace from losing its last owner and change nothing when the person changed meanwhile.

/** A person of a workspace, as the console lists them. */
export interface Member {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  joinedAt: string;
  /** False until they set a password through their link. */
  passwordSet: boolean;
}

const ROLE_ORDER: Record<Role, number> = { owner: 0, admin: 1, collector: 2, viewer: 3 };

function membersQuery(db: DbOrTrx, workspaceId: string) {
  return db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select([
      'users.id',
      'users.email',
      'users.name',
      'users.password_hash',
      'memberships.role',
      'memberships.created_at',
    ])
    .where('memberships.workspace_id', '=', workspaceId);
}

type MemberRow = Awaited<ReturnType<ReturnType<typeof membersQuery>['executeTakeFirst']>>;

const toMember = (row: NonNullable<MemberRow>): Member => ({
  id: row.id,
  email: row.email,
  name: row.name,
  role: row.role,
  joinedAt: row.created_at,
  passwordSet: row.password_hash !== null,
});

/** The people of a workspace: owners first, then admins, collectors and viewers, each by e-mail. */
export async function peopleOf(db: DbOrTrx, workspaceId: string): Promise<Member[]> {
  const rows = await membersQuery(db, workspaceId).orderBy('users.email').execute();
  return rows.map(toMember).sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role]);
}

/** One person of a workspace; undefined when they do not belong to it. */
export async function memberOf(
  db: DbOrTrx,
  workspaceId: string,
  userId: string,
): Promise<Member | undefined> {
  const row = await membersQuery(db, workspaceId).where('users.id', '=', userId).executeTakeFirst();
  return row ? toMember(row) : undefined;
}

type Unit = { db: Db; dialect: DialectName };
/** Work to do in the same transaction as a change (its audit entry). */
type Also<T> = (trx: Trx, change: T) => Promise<void>;

export interface Invitation {
  user: { id: string; email: string };
  /** The account is new. */
  created: boolean;
  /** A link to set the password, or null: the person signs in with the password they have, or (see `pendingElsewhere`). */
  token: string | null;
  /**
   * The person has no password yet and belongs to another workspace: a link shown to whoever invites them could
   * take over that membership too, so none is made unless it goes to their own address.
   */
  pendingElsewhere: boolean;
}

/**
 * Invites a person to a workspace with a role: a new account when the e-mail is new. A link to set the password
 * is made only for an account without one, and, unless `byMail` (the link goes to the address itself), only when
 * the account belongs to no other workspace. A person already in the workspace is left as they are (`member`).
 */
export async function invitePerson(
  unit: Unit,
  clock: Clock,
  input: { workspaceId: string; email: string; role: Role; name?: string; byMail: boolean },
  also?: Also<Invitation>,
): Promise<Invitation | { problem: 'email' } | { problem: 'member'; role: Role }> {
  const email = input.email.trim().toLowerCase();
  if (!isEmail(email)) return { problem: 'email' };
  const at = clock.now();
  const now = at.toISOString();
  return inTransaction(unit, null, async (trx) => {
    let user = await trx.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    const created = !user;
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
    const memberships = await membershipsOf(trx, user.id);
    const existing = memberships.find((m) => m.workspace_id === input.workspaceId);
    if (existing) return { problem: 'member' as const, role: existing.role };
    const joined = await trx
      .insertInto('memberships')
      .values({ user_id: user.id, workspace_id: input.workspaceId, role: input.role, created_at: now })
      .onConflict((oc) => oc.columns(['user_id', 'workspace_id']).doNothing())
      .executeTakeFirst();
    if (Number(joined.numInsertedOrUpdatedRows ?? 0) === 0)
      return { problem: 'member' as const, role: input.role };
    const pendingElsewhere = user.password_hash === null && memberships.length > 0;
    const token =
      user.password_hash === null && (input.byMail || !pendingElsewhere)
        ? await newLink(trx, user.id, at)
        : null;
    const invitation: Invitation = {
      user: { id: user.id, email: user.email },
      created,
      token,
      pendingElsewhere,
    };
    await also?.(trx, invitation);
    return invitation;
  });
}

export type LinkRefusal = 'missing' | 'password_set' | 'pending_elsewhere';

/**
 * A new link to set the password of a person of a workspace who has none yet (theirs was lost or expired); the
 * links made before stop working. Refused once they have a password (they sign in), and, unless `byMail`, when
 * they belong to another workspace too (see `Invitation.pendingElsewhere`).
 */
export async function renewLink(
  unit: Unit,
  clock: Clock,
  input: { workspaceId: string; userId: string; byMail: boolean },
  also?: Also<{ email: string; role: Role }>,
): Promise<{ token: string; email: string; role: Role } | { refused: LinkRefusal }> {
  const at = clock.now();
  return inTransaction(unit, null, async (trx) => {
    const member = await memberOf(trx, input.workspaceId, input.userId);
    if (!member) return { refused: 'missing' as const };
    if (member.passwordSet) return { refused: 'password_set' as const };
    const memberships = await membershipsOf(trx, input.userId);
    if (!input.byMail && memberships.some((m) => m.workspace_id !== input.workspaceId))
      return { refused: 'pending_elsewhere' as const };
    await trx
      .updateTable('password_tokens')
      .set({ used_at: at.toISOString() })
      .where('user_id', '=', input.userId)
      .where('used_at', 'is', null)
      .execute();
    const token = await newLink(trx, input.userId, at);
    await also?.(trx, { email: member.email, role: member.role });
    return { token, email: member.email, role: member.role };
  });
}

/** Owners of a workspace other than `userId`, counted with the workspace locked (changes of owners queue). */
async function otherOwners(trx: Trx, dialect: DialectName, workspaceId: string, userId: string) {
  await lockWorkspace(trx, dialect, workspaceId);
  const row = await trx
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'owner')
    .where('user_id', '!=', userId)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

export type MembershipRefusal = 'missing' | 'changed' | 'last_owner';

/**
 * Changes a person's role, when it is still `from` (what the console checked); the last owner stays an owner.
 */
export async function changeRole(
  unit: Unit,
  input: { workspaceId: string; userId: string; from: Role; to: Role },
  also?: Also<{ before: Role; after: Role }>,
): Promise<{ before: Role; after: Role } | { refused: MembershipRefusal }> {
  return inTransaction(unit, null, async (trx) => {
    const lastOwner =
      input.from === 'owner' && input.to !== 'owner'
        ? (await otherOwners(trx, unit.dialect, input.workspaceId, input.userId)) === 0
        : false;
    const current = await memberOf(trx, input.workspaceId, input.userId);
    if (!current) return { refused: 'missing' as const };
    if (current.role !== input.from) return { refused: 'changed' as const };
    if (lastOwner) return { refused: 'last_owner' as const };
    const changed = await trx
      .updateTable('memberships')
      .set({ role: input.to })
      .where('workspace_id', '=', input.workspaceId)
      .where('user_id', '=', input.userId)
      .where('role', '=', input.from)
      .executeTakeFirst();
    if (Number(changed.numUpdatedRows) === 0) return { refused: 'changed' as const };
    const change = { before: input.from, after: input.to };
    await also?.(trx, change);
    return change;
  });
}

/**
 * Takes a person out of a workspace, when their role is still `from`; the last owner stays. Their sessions in the
 * workspace end, so a cookie of theirs never comes back to life should they be invited again.
 */
export async function removeMember(
  unit: Unit,
  clock: Clock,
  input: { workspaceId: string; userId: string; from: Role },
  also?: Also<{ role: Role; sessionsEnded: number }>,
): Promise<{ role: Role; sessionsEnded: number } | { refused: MembershipRefusal }> {
  return inTransaction(unit, null, async (trx) => {
    const lastOwner =
      input.from === 'owner'
        ? (await otherOwners(trx, unit.dialect, input.workspaceId, input.userId)) === 0
        : false;
    const current = await memberOf(trx, input.workspaceId, input.userId);
    if (!current) return { refused: 'missing' as const };
    if (current.role !== input.from) return { refused: 'changed' as const };
    if (lastOwner) return { refused: 'last_owner' as const };
    const removed = await trx
      .deleteFrom('memberships')
      .where('workspace_id', '=', input.workspaceId)
      .where('user_id', '=', input.userId)
      .where('role', '=', input.from)
      .executeTakeFirst();
    if (Number(removed.numDeletedRows) === 0) return { refused: 'changed' as const };
    const ended = await trx
      .updateTable('sessions')
      .set({ ended_at: clock.now().toISOString() })
      .where('workspace_id', '=', input.workspaceId)
      .where('user_id', '=', input.userId)
      .where('ended_at', 'is', null)
      .executeTakeFirst();
    const removal = { role: current.role, sessionsEnded: Number(ended.numUpdatedRows) };
    await also?.(trx, removal);
    return removal;
  });
}

/**
 * The name a session is shown and ended by: derived from the hash of its cookie's token, and saying nothing of
 * it (neither the token nor its hash, which signs no one in but is the session's key, leaves the server).
 */
export const sessionIdOf = (tokenHash: string) => `ses_${sha256(`session-id:${tokenHash}`).slice(0, 24)}`;

/** The shown id of the session a cookie names. */
export const sessionIdOfCookie = (cookie: string) => sessionIdOf(sha256(cookie));

/** A session open in a workspace, as the console lists it. */
export interface OpenSession {
  id: string;
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  mode: Mode;
  createdAt: string;
  lastSeenAt: string;
}

function openSessionsQuery(db: DbOrTrx, clock: Clock, workspaceId: string) {
  const at = clock.now().getTime();
  return sessionsQuery(db)
    .where('sessions.workspace_id', '=', workspaceId)
    .where('sessions.ended_at', 'is', null)
    .where('sessions.last_seen_at', '>', new Date(at - SESSION_IDLE_MS).toISOString())
    .where('sessions.created_at', '>', new Date(at - SESSION_MAX_MS).toISOString());
}

const toOpenSession = (
  row: Awaited<ReturnType<ReturnType<typeof openSessionsQuery>['execute']>>[number],
) => ({
  id: sessionIdOf(row.token_hash),
  userId: row.user_id,
  email: row.email,
  name: row.name,
  role: row.role,
  mode: row.mode,
  createdAt: row.created_at,
  lastSeenAt: row.last_seen_at,
});

/** The sessions open in a workspace (not ended, idle or too old), most recently used first. */
export async function openSessionsOf(db: DbOrTrx, clock: Clock, workspaceId: string): Promise<OpenSession[]> {
  const rows = await openSessionsQuery(db, clock, workspaceId)
    .orderBy('sessions.last_seen_at', 'desc')
    .execute();
  return rows.map(toOpenSession);
}

/** Ends a session open in a workspace, named by its shown id; undefined when there is no such open session. */
export async function endSessionById(
  unit: Unit,
  clock: Clock,
  input: { workspaceId: string; sessionId: string },
  also?: Also<OpenSession & { endedAt: string }>,
): Promise<(OpenSession & { endedAt: string }) | undefined> {
  return inTransaction(unit, null, async (trx) => {
    const rows = await openSessionsQuery(trx, clock, input.workspaceId).execute();
    const row = rows.find((r) => sessionIdOf(r.token_hash) === input.sessionId);
    if (!row) return undefined;
    const endedAt = clock.now().toISOString();
    const ended = await trx
      .updateTable('sessions')
      .set({ ended_at: endedAt })
      .where('token_hash', '=', row.token_hash)
      .where('ended_at', 'is', null)
      .executeTakeFirst();
    if (Number(ended.numUpdatedRows) === 0) return undefined;
    const session = { ...toOpenSession(row), endedAt };
    await also?.(trx, session);
    return session;
  });
}
