import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { cli, cliEnv, cliJson } from '../helpers/cli.js';
import { newWorkspace } from '../helpers/factories.js';

// The console's sign-in: a person set up with `paytrack user create`, their one-time link, sessions kept
// server-side behind an HttpOnly cookie, sign-out, failed tries per account, and forms refused from other sites.

const PASSWORD = 'correct horse battery';

let t: TestApp;
let clock: ManualClock;
before(async () => {
  // The command line makes links on the system clock: the app's clock starts there too, and tests move it on.
  clock = new ManualClock(new Date());
  t = await buildTestApp({ clock });
});
after(() => t.close());

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

function post(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: form(fields),
  });
}

const cookieOf = (setCookie: unknown) => String(setCookie).split(';')[0] as string;

/** A person of a new workspace, with their password set through the link; their session cookie. */
async function owner(email = `owner-${Math.random().toString(36).slice(2)}@example.com`) {
  const { workspaceId } = await newWorkspace(t);
  const made = await cliJson(
    cliEnv(t.database),
    'user',
    'create',
    '--workspace',
    workspaceId,
    '--email',
    email,
    '--role',
    'owner',
    '--json',
  );
  const path = new URL(made.link).pathname;
  const set = await post(path, { password: PASSWORD });
  assert.equal(set.statusCode, 303, set.body);
  return {
    email,
    path,
    workspaceId,
    cookie: cookieOf(set.headers['set-cookie']),
    setCookie: String(set.headers['set-cookie']),
  };
}

describe('console sign-in', () => {
  test('the link sets a password once and signs the person in, with an HttpOnly, SameSite=Lax session cookie', async () => {
    const { workspaceId } = await newWorkspace(t);
    const made = await cliJson(
      cliEnv(t.database),
      'user',
      'create',
      '--workspace',
      workspaceId,
      '--email',
      'Ada@Example.com',
      '--role',
      'owner',
      '--json',
    );
    assert.match(made.link, /\/console\/set-password\/pw_[\w-]{43}$/);
    assert.equal(made.email, 'ada@example.com');
    const path = new URL(made.link).pathname;
    assert.equal((await t.app.inject({ method: 'GET', url: path })).statusCode, 200);
    const short = await post(path, { password: 'short' });
    assert.equal(short.statusCode, 422);
    assert.match(short.body, /at least 10 characters/);
    const set = await post(path, { password: PASSWORD });
    assert.equal(set.statusCode, 303);
    assert.equal(set.headers.location, '/console');
    const setCookie = String(set.headers['set-cookie']);
    assert.match(
      setCookie,
      /^paytrack_session=ses_[\w-]{43}; Path=\/console; HttpOnly; SameSite=Lax; Max-Age=604800$/,
    );
    const home = await t.app.inject({
      method: 'GET',
      url: '/console',
      headers: { cookie: cookieOf(setCookie) },
    });
    assert.equal(home.statusCode, 200);
    assert.match(home.body, /Signed in as ada@example\.com \(owner\)/);
    assert.match(home.body, /Test mode/);
    assert.match(String(home.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal((await t.app.inject({ method: 'GET', url: path })).statusCode, 410, 'the link works once');
  });

  test('sign-in and sign-out: the ended session is refused even when its cookie is replayed', async () => {
    const { email } = await owner();
    const signedIn = await post('/console/sign-in', { email, password: PASSWORD });
    assert.equal(signedIn.statusCode, 303, signedIn.body);
    const cookie = cookieOf(signedIn.headers['set-cookie']);
    const home = await t.app.inject({ method: 'GET', url: '/console', headers: { cookie } });
    const formToken = /name="form_token" value="([^"]+)"/.exec(home.body)?.[1] as string;
    const out = await post('/console/sign-out', { form_token: formToken }, { cookie });
    assert.equal(out.statusCode, 303);
    const replayed = await t.app.inject({ method: 'GET', url: '/console', headers: { cookie } });
    assert.equal(replayed.statusCode, 303);
    assert.equal(replayed.headers.location, '/console/sign-in');
  });

  test('a session ends after 12 idle hours', async () => {
    const { cookie } = await owner();
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/console', headers: { cookie } })).statusCode,
      200,
    );
    clock.advance(12 * 60 * 60 * 1000 + 1000);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/console', headers: { cookie } })).statusCode,
      303,
    );
  });

  test('wrong passwords are refused without saying whether the account exists; five lock the account for 15 minutes', async () => {
    const { email } = await owner();
    const unknown = await post('/console/sign-in', { email: 'nobody@example.com', password: PASSWORD });
    assert.equal(unknown.statusCode, 401);
    for (let i = 0; i < 5; i++) {
      const wrong = await post('/console/sign-in', { email, password: 'not the password' });
      assert.equal(wrong.statusCode, 401);
      assert.match(wrong.body, /do not match an account/);
    }
    const locked = await post('/console/sign-in', { email, password: PASSWORD });
    assert.equal(locked.statusCode, 429);
    clock.advance(15 * 60 * 1000 + 1000);
    assert.equal((await post('/console/sign-in', { email, password: PASSWORD })).statusCode, 303);
  });

  test('a form posted from another site is refused and changes nothing', async () => {
    const { email, cookie } = await owner();
    const forged = await post(
      '/console/sign-in',
      { email, password: PASSWORD },
      { 'sec-fetch-site': 'cross-site' },
    );
    assert.equal(forged.statusCode, 403);
    const out = await post('/console/sign-out', { form_token: 'guess' }, { cookie });
    assert.equal(out.statusCode, 403);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/console', headers: { cookie } })).statusCode,
      200,
      'a sign-out without the form token ends nothing',
    );
  });

  test('user create refuses a bad role or e-mail, naming the option', async () => {
    const { workspaceId } = await newWorkspace(t);
    const role = await cli(
      cliEnv(t.database),
      'user',
      'create',
      '--workspace',
      workspaceId,
      '--email',
      'a@example.com',
      '--role',
      'boss',
    );
    assert.equal(role.code, 2);
    assert.match(role.stderr, /--role must be owner, admin, collector or viewer/);
    const email = await cli(
      cliEnv(t.database),
      'user',
      'create',
      '--workspace',
      workspaceId,
      '--email',
      'nope',
      '--role',
      'viewer',
    );
    assert.equal(email.code, 2);
    assert.match(email.stderr, /--email must be an e-mail address/);
  });
});
