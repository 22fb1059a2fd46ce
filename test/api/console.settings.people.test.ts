import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addPerson, sessionIdOfCookie } from '../../src/modules/people/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type ConsolePerson, consoleGet, consolePerson, consolePost, PASSWORD } from '../helpers/console.js';
import { newWorkspace } from '../helpers/factories.js';
import { decodeBody, type LocalSmtpServer, startSmtpServer, subjectOf } from '../helpers/transports.js';

// People and sessions in the console's settings: owners and admins invite people (an e-mailed link when the
// server has SMTP, else a link shown once), change roles, remove people and end sessions; an admin never touches
// an owner; every change leaves an audit entry by the person who made it.

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const mainOf = (html: string) => html.slice(html.indexOf('<main'), html.indexOf('</main>'));
const cookieValue = (cookie: string) => cookie.slice(cookie.indexOf('=') + 1);

/** Sets a password through a link's path; the new session's cookie. */
async function setPassword(app: TestApp, path: string): Promise<string> {
  const set = await app.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ password: PASSWORD }).toString(),
  });
  assert.equal(set.statusCode, 303, set.body);
  return String(set.headers['set-cookie']).split(';')[0] as string;
}

const home = (app: TestApp, cookie: string) =>
  app.app.inject({ method: 'GET', url: '/console', headers: { cookie } });

async function auditOf(owner: ConsolePerson & { workspace: { api: { get: (p: string) => Promise<any> } } }) {
  const log = await owner.workspace.api.get(`/audit-log?actor_id=${owner.id}`);
  assert.equal(log.status, 200, JSON.stringify(log.body));
  return log.body.data.items as {
    action: string;
    actor: { type: string; id: string };
    record: { type: string; id: string };
    changes: Record<string, [unknown, unknown]>;
    reason: string | null;
  }[];
}

describe('inviting people', () => {
  test('without SMTP the link is shown once; it sets a password and signs them in with the role given', async () => {
    const owner = await consolePerson(t, 'owner');
    const invited = await consolePost(t, owner, '/console/settings/people', {
      email: 'Friend@Example.com',
      name: 'Efe Friend',
      role: 'collector',
    });
    assert.equal(invited.statusCode, 201, invited.body);
    const main = mainOf(invited.body);
    assert.match(main, /friend@example\.com is invited/);
    assert.match(main, /shown only now/);
    const link = /value="(http[^"]+\/console\/set-password\/pw_[\w-]{43})"/.exec(main)?.[1];
    assert.ok(link, 'the link is on the page');
    assert.ok(link.startsWith(t.ctx.config.publicUrl));

    // Listed as invited until they set their password; never shown the link again.
    const list = await consoleGet(t, owner, '/console/settings/people');
    assert.match(list.body, /friend@example\.com/);
    assert.match(list.body, /invited/);
    assert.doesNotMatch(list.body, /set-password/);

    // Lost, it is replaced: a new link, and the first stops working.
    const userId = /\/console\/settings\/people\/(usr_\w+)\/link/.exec(list.body)?.[1];
    assert.ok(userId, 'a new link can be asked for');
    const renewed = await consolePost(t, owner, `/console/settings/people/${userId}/link`, {});
    assert.equal(renewed.statusCode, 201, renewed.body);
    assert.match(mainOf(renewed.body), /the links given before no longer work/);
    const second = /value="(http[^"]+\/console\/set-password\/pw_[\w-]{43})"/.exec(renewed.body)?.[1];
    assert.ok(second && second !== link);
    assert.equal((await t.app.inject({ method: 'GET', url: new URL(link).pathname })).statusCode, 410);

    const path = new URL(second).pathname;
    assert.equal((await t.app.inject({ method: 'GET', url: path })).statusCode, 200);
    const cookie = await setPassword(t, path);
    const signedIn = await home(t, cookie);
    assert.equal(signedIn.statusCode, 200);
    assert.match(signedIn.body, /Signed in as friend@example\.com \(collector\)/);

    const set = await consolePost(t, owner, `/console/settings/people/${userId}/link`, {});
    assert.equal(set.statusCode, 409);
    assert.match(mainOf(set.body), /set their password already/);

    const entries = await auditOf(owner);
    assert.ok(entries.some((e) => e.action === 'people.link' && e.record.id === userId));
    const entry = entries.find((e) => e.action === 'people.invite');
    assert.ok(entry, 'an audit entry for the invitation');
    assert.deepEqual(entry.actor, { type: 'user', id: owner.id });
    assert.equal(entry.record.type, 'user');
    assert.deepEqual(entry.changes, { email: [null, 'friend@example.com'], role: [null, 'collector'] });
  });

  test('a bad address or a person already in the workspace is a field error and changes nothing', async () => {
    const owner = await consolePerson(t, 'owner');
    const bad = await consolePost(t, owner, '/console/settings/people', {
      email: 'not-an-address',
      role: 'viewer',
    });
    assert.equal(bad.statusCode, 422);
    assert.match(mainOf(bad.body), /id="f-email-error">must be an e-mail address/);
    assert.match(mainOf(bad.body), /value="not-an-address"/);

    const admin = await consolePerson(t, 'admin', owner.workspace);
    const again = await consolePost(t, owner, '/console/settings/people', {
      email: admin.email,
      role: 'viewer',
    });
    assert.equal(again.statusCode, 409);
    assert.match(mainOf(again.body), /already belongs to this workspace \(admin\)/);
    const page = await consoleGet(t, admin, '/console');
    assert.match(page.body, /\(admin\)/);
    assert.equal((await auditOf(owner)).filter((e) => e.action === 'people.invite').length, 0);
  });

  test('a person with an account is added without a link; one invited elsewhere who has no password yet gets none either', async () => {
    const owner = await consolePerson(t, 'owner');
    const elsewhere = await consolePerson(t, 'owner');
    const added = await consolePost(t, owner, '/console/settings/people', {
      email: elsewhere.email,
      role: 'viewer',
    });
    assert.equal(added.statusCode, 303, added.body);
    assert.equal(added.headers.location, '/console/settings/people?done=invited_existing');
    const list = await consoleGet(t, owner, '/console/settings/people?done=invited_existing');
    assert.match(list.body, new RegExp(elsewhere.email.replace('.', '\\.')));
    assert.match(list.body, /already have an account/);

    // An account waiting for its password in another workspace: a link shown here would be a way into that one.
    const other = await newWorkspace(t);
    await addPerson(t.ctx.db, t.clock, {
      workspaceId: other.workspaceId,
      email: 'boss@example.com',
      role: 'owner',
    });
    const pending = await consolePost(t, owner, '/console/settings/people', {
      email: 'boss@example.com',
      role: 'viewer',
    });
    assert.equal(pending.statusCode, 303, pending.body);
    assert.equal(pending.headers.location, '/console/settings/people?done=invited_pending');
    const boss = /\/console\/settings\/people\/(usr_\w+)\/link/.exec(
      (await consoleGet(t, owner, '/console/settings/people')).body,
    )?.[1];
    assert.ok(boss);
    const noLink = await consolePost(t, owner, `/console/settings/people/${boss}/link`, {});
    assert.equal(noLink.statusCode, 409);
    assert.doesNotMatch(noLink.body, /set-password\/pw_/);
  });

  test('with SMTP set the invitation is e-mailed: the link goes to their address, not to the page', async () => {
    const smtp: LocalSmtpServer = await startSmtpServer();
    const mailing = await buildTestApp({
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'paytrack <no-reply@example.com>' },
    });
    try {
      const owner = await consolePerson(mailing, 'owner');
      const invited = await consolePost(mailing, owner, '/console/settings/people', {
        email: 'new.person@example.com',
        role: 'viewer',
      });
      assert.equal(invited.statusCode, 303, invited.body);
      assert.equal(invited.headers.location, '/console/settings/people?done=invited_mailed');
      assert.equal(smtp.received.length, 1);
      const [mail] = smtp.received;
      assert.deepEqual(mail?.recipients, ['new.person@example.com']);
      const { headers, body } = decodeBody(mail?.raw ?? '');
      assert.match(subjectOf(headers), /You are invited to Test workspace/);
      const link = /(http\S+\/console\/set-password\/pw_[\w-]{43})/.exec(body)?.[1];
      assert.ok(link, body);
      const cookie = await setPassword(mailing, new URL(link).pathname);
      assert.match((await home(mailing, cookie)).body, /new\.person@example\.com \(viewer\)/);
      const page = await consoleGet(mailing, owner, '/console/settings/people?done=invited_mailed');
      assert.match(page.body, /an e-mail with their link/);

      // With e-mail, a new link goes to their address too, even for one invited elsewhere as well.
      const other = await newWorkspace(mailing);
      await addPerson(mailing.ctx.db, mailing.clock, {
        workspaceId: other.workspaceId,
        email: 'twice@example.com',
        role: 'viewer',
      });
      const twice = await consolePost(mailing, owner, '/console/settings/people', {
        email: 'twice@example.com',
        role: 'viewer',
      });
      assert.equal(twice.headers.location, '/console/settings/people?done=invited_mailed');
      const id = /\/console\/settings\/people\/(usr_\w+)\/link/.exec(
        (await consoleGet(mailing, owner, '/console/settings/people')).body,
      )?.[1];
      assert.ok(id);
      const renewed = await consolePost(mailing, owner, `/console/settings/people/${id}/link`, {});
      assert.equal(renewed.statusCode, 303, renewed.body);
      assert.equal(renewed.headers.location, '/console/settings/people?done=link_mailed');
      assert.equal(smtp.received.length, 3);
      assert.deepEqual(smtp.received[2]?.recipients, ['twice@example.com']);
    } finally {
      await mailing.close();
      await smtp.close();
    }
  });
});

describe('roles and removal', () => {
  test('an admin cannot invite, promote, demote or remove an owner (403, nothing changes)', async () => {
    const owner = await consolePerson(t, 'owner');
    const admin = await consolePerson(t, 'admin', owner.workspace);
    const viewer = await consolePerson(t, 'viewer', owner.workspace);

    const page = await consoleGet(t, admin, '/console/settings/people');
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(mainOf(page.body), /<option value="owner"/);
    assert.doesNotMatch(mainOf(page.body), new RegExp(`people/${owner.id}/`));

    const invite = await consolePost(t, admin, '/console/settings/people', {
      email: 'second.owner@example.com',
      role: 'owner',
    });
    assert.equal(invite.statusCode, 403);
    const demote = await consolePost(t, admin, `/console/settings/people/${owner.id}/role`, {
      role: 'viewer',
    });
    assert.equal(demote.statusCode, 403);
    const promote = await consolePost(t, admin, `/console/settings/people/${viewer.id}/role`, {
      role: 'owner',
    });
    assert.equal(promote.statusCode, 403);
    assert.equal((await consoleGet(t, admin, `/console/settings/people/${owner.id}/remove`)).statusCode, 403);
    const remove = await consolePost(t, admin, `/console/settings/people/${owner.id}/remove`, {});
    assert.equal(remove.statusCode, 403);
    const ownerSession = sessionIdOfCookie(cookieValue(owner.cookie));
    const end = await consolePost(t, admin, `/console/settings/sessions/${ownerSession}/end`, {});
    assert.equal(end.statusCode, 403);

    assert.match((await consoleGet(t, owner, '/console')).body, /\(owner\)/);
    assert.match((await consoleGet(t, viewer, '/console')).body, /\(viewer\)/);
    const list = await consoleGet(t, owner, '/console/settings/people');
    assert.doesNotMatch(list.body, /second\.owner@example\.com/);

    // An admin does manage the others.
    const promoted = await consolePost(t, admin, `/console/settings/people/${viewer.id}/role`, {
      role: 'collector',
    });
    assert.equal(promoted.statusCode, 303, promoted.body);
    assert.match((await consoleGet(t, viewer, '/console')).body, /\(collector\)/);
  });

  test('an owner changes a role and removes a member, whose session then stops working; all in the audit trail', async () => {
    const owner = await consolePerson(t, 'owner');
    const member = await consolePerson(t, 'viewer', owner.workspace);

    const changed = await consolePost(t, owner, `/console/settings/people/${member.id}/role`, {
      role: 'admin',
    });
    assert.equal(changed.statusCode, 303, changed.body);
    assert.equal(changed.headers.location, '/console/settings/people?done=role');
    assert.match((await consoleGet(t, member, '/console')).body, /\(admin\)/);
    // Now an admin, they see the forms of the settings.
    assert.match(mainOf((await consoleGet(t, member, '/console/settings/keys')).body), /Create key/);

    const confirm = await consoleGet(t, owner, `/console/settings/people/${member.id}/remove`);
    assert.equal(confirm.statusCode, 200);
    assert.match(mainOf(confirm.body), /Remove <strong>/);
    const removed = await consolePost(t, owner, `/console/settings/people/${member.id}/remove`, {
      reason: 'Left the business',
    });
    assert.equal(removed.statusCode, 303, removed.body);
    assert.equal(removed.headers.location, '/console/settings/people?done=removed');
    const refused = await consoleGet(t, member, '/console');
    assert.equal(refused.statusCode, 303);
    assert.equal(refused.headers.location, '/console/sign-in');
    assert.doesNotMatch(
      (await consoleGet(t, owner, '/console/settings/people')).body,
      new RegExp(member.email),
    );

    // Invited again later, their old cookie stays dead.
    await addPerson(t.ctx.db, t.clock, {
      workspaceId: owner.workspaceId,
      email: member.email,
      role: 'viewer',
    });
    assert.equal((await consoleGet(t, member, '/console')).statusCode, 303);

    const entries = await auditOf(owner);
    const role = entries.find((e) => e.action === 'people.role');
    assert.deepEqual(role?.changes, { role: ['viewer', 'admin'] });
    assert.deepEqual(role?.record, { type: 'user', id: member.id });
    assert.deepEqual(role?.actor, { type: 'user', id: owner.id });
    const removal = entries.find((e) => e.action === 'people.remove');
    assert.deepEqual(removal?.changes, { role: ['admin', null] });
    assert.equal(removal?.reason, 'Left the business');
  });

  test('the last owner stays an owner', async () => {
    const owner = await consolePerson(t, 'owner');
    const demote = await consolePost(t, owner, `/console/settings/people/${owner.id}/role`, {
      role: 'admin',
    });
    assert.equal(demote.statusCode, 409);
    assert.match(mainOf(demote.body), /keeps at least one owner/);
    const remove = await consolePost(t, owner, `/console/settings/people/${owner.id}/remove`, {});
    assert.equal(remove.statusCode, 409);
    assert.match((await consoleGet(t, owner, '/console')).body, /\(owner\)/);

    // With a second owner, the first may step down.
    const second = await consolePerson(t, 'owner', owner.workspace);
    const stepDown = await consolePost(t, second, `/console/settings/people/${owner.id}/role`, {
      role: 'admin',
    });
    assert.equal(stepDown.statusCode, 303);
    assert.match((await consoleGet(t, owner, '/console')).body, /\(admin\)/);
    const unknown = await consolePost(t, second, '/console/settings/people/usr_unknown/role', {
      role: 'viewer',
    });
    assert.equal(unknown.statusCode, 404);
  });
});

describe('sessions', () => {
  test('an owner ends a session from the console: that cookie is refused from then on', async () => {
    const owner = await consolePerson(t, 'owner');
    const collector = await consolePerson(t, 'collector', owner.workspace);
    const id = sessionIdOfCookie(cookieValue(collector.cookie));
    const page = await consoleGet(t, owner, '/console/settings/sessions');
    assert.equal(page.statusCode, 200);
    const main = mainOf(page.body);
    assert.match(main, new RegExp(collector.email.replace('.', '\\.')));
    assert.match(main, new RegExp(`/console/settings/sessions/${id}/end`));
    assert.match(main, /this session \(you\)/);
    // The cookie's token and its hash never appear.
    assert.doesNotMatch(page.body, new RegExp(cookieValue(collector.cookie)));

    const ended = await consolePost(t, owner, `/console/settings/sessions/${id}/end`, {});
    assert.equal(ended.statusCode, 303, ended.body);
    assert.equal(ended.headers.location, '/console/settings/sessions?done=ended');
    const refused = await consoleGet(t, collector, '/console');
    assert.equal(refused.statusCode, 303);
    assert.equal(refused.headers.location, '/console/sign-in');
    assert.doesNotMatch(
      (await consoleGet(t, owner, '/console/settings/sessions')).body,
      new RegExp(`sessions/${id}/end`),
    );
    const again = await consolePost(t, owner, `/console/settings/sessions/${id}/end`, {});
    assert.equal(again.statusCode, 404);

    const entry = (await auditOf(owner)).find((e) => e.action === 'sessions.end');
    assert.deepEqual(entry?.record, { type: 'user', id: collector.id });
    assert.deepEqual(entry?.changes, { session: [id, null] });
  });

  test('ending your own session signs you out', async () => {
    const owner = await consolePerson(t, 'owner');
    const id = sessionIdOfCookie(cookieValue(owner.cookie));
    const ended = await consolePost(t, owner, `/console/settings/sessions/${id}/end`, {});
    assert.equal(ended.statusCode, 303);
    assert.equal(ended.headers.location, '/console/sign-in');
    assert.equal((await consoleGet(t, owner, '/console')).statusCode, 303);
  });
});
