import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { consoleGet, consolePerson, consolePost } from '../helpers/console.js';
import { SECRET_KEY, setProviderKey } from '../helpers/live-providers.js';
import { messagesEnv, setMessageProvider } from '../helpers/messages.js';

// The console's settings: each page renders for an owner; the workspace settings change through their form (and
// read back through the API), a bad time zone or colour is a field error that changes nothing; collectors see
// none of it, viewers see it without a single form and cannot post one anyway.

let t: TestApp;
before(async () => {
  t = await buildTestApp({ env: { PAYTRACK_SECRET_KEY: SECRET_KEY } });
});
after(() => t.close());

/** The page's own part, without the bar (whose mode switch and sign-out are forms on every page). */
const mainOf = (html: string) => html.slice(html.indexOf('<main'), html.indexOf('</main>'));

const PAGES = [
  ['/console/settings', /Settings/],
  ['/console/settings/workspace', /Workspace settings/],
  ['/console/settings/people', /People and roles/],
  ['/console/settings/sessions', /Sessions/],
  ['/console/settings/keys', /API keys/],
  ['/console/settings/webhooks', /Webhooks/],
  ['/console/settings/providers', /Payment providers/],
  ['/console/settings/exports', /Reports and exports/],
  ['/console/settings/test-clock', /Test clock/],
] as const;

describe('console settings pages', () => {
  test('every settings page renders for an owner, with its forms', async () => {
    const owner = await consolePerson(t, 'owner');
    for (const [path, heading] of PAGES) {
      const page = await consoleGet(t, owner, path);
      assert.equal(page.statusCode, 200, `${path}: ${page.body}`);
      assert.match(page.headers['content-type'] as string, /^text\/html/);
      assert.match(mainOf(page.body), heading, path);
      assert.match(page.body, /aria-current="page">Settings</, path);
    }
    const forms = {
      '/console/settings/workspace': 'Save settings',
      '/console/settings/people': 'Invite',
      '/console/settings/keys': 'Create key',
      '/console/settings/webhooks': 'Add endpoint',
      '/console/settings/exports': 'Request export',
      '/console/settings/test-clock': 'Advance the test clock',
    };
    for (const [path, button] of Object.entries(forms)) {
      const page = await consoleGet(t, owner, path);
      assert.match(mainOf(page.body), new RegExp(`<button type="submit">${button}</button>`), path);
    }
    const clock = await consoleGet(t, owner, '/console/settings/test-clock');
    assert.match(mainOf(clock.body), /Test time/);
  });

  test('the workspace settings change through the form and read back through GET /account', async () => {
    const owner = await consolePerson(t, 'owner');
    const saved = await consolePost(t, owner, '/console/settings/workspace', {
      name: 'Ade Motors',
      currency: 'ghs',
      timeZone: 'Africa/Accra',
      country: 'gh',
      supportEmail: 'help@ademotors.example',
      supportPhone: '+233201234567',
      brandColor: '#0A7D4F',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, '/console/settings/workspace?done=saved');
    const account = await owner.workspace.api.get('/account');
    assert.equal(account.status, 200);
    const data = account.body.data;
    assert.deepEqual(
      {
        name: data.name,
        currency: data.currency,
        timeZone: data.timeZone,
        country: data.country,
        supportEmail: data.supportEmail,
        supportPhone: data.supportPhone,
        brandColor: data.brandColor,
      },
      {
        name: 'Ade Motors',
        currency: 'GHS',
        timeZone: 'Africa/Accra',
        country: 'GH',
        supportEmail: 'help@ademotors.example',
        supportPhone: '+233201234567',
        brandColor: '#0a7d4f',
      },
    );
    const page = await consoleGet(t, owner, '/console/settings/workspace?done=saved');
    assert.match(page.body, /The workspace settings are saved/);
    assert.match(page.body, /value="Africa\/Accra"/);
    // The console takes on the colour at once.
    assert.match(page.body, /--brand: #0a7d4f/);

    // Clearing the contact and colour: empty fields are null.
    const cleared = await consolePost(t, owner, '/console/settings/workspace', {
      name: 'Ade Motors',
      currency: 'GHS',
      timeZone: 'Africa/Accra',
      country: 'GH',
      supportEmail: '',
      supportPhone: '',
      brandColor: '',
    });
    assert.equal(cleared.statusCode, 303, cleared.body);
    const after = (await owner.workspace.api.get('/account')).body.data;
    assert.equal(after.supportEmail, null);
    assert.equal(after.brandColor, null);

    // The same settings again change nothing, and say so.
    const same = await consolePost(t, owner, '/console/settings/workspace', {
      name: 'Ade Motors',
      currency: 'GHS',
      timeZone: 'Africa/Accra',
      country: 'GH',
      supportEmail: '',
      supportPhone: '',
      brandColor: '',
    });
    assert.equal(same.headers.location, '/console/settings/workspace?done=unchanged');
    const log = await owner.workspace.api.get(`/audit-log?actor_id=${owner.id}`);
    const updates = log.body.data.items.filter((e: { action: string }) => e.action === 'account.update');
    assert.equal(updates.length, 2);
    assert.equal(updates[1].changes.timeZone[1], 'Africa/Accra');
    assert.deepEqual(updates[1].actor, { type: 'user', id: owner.id });
  });

  test('a bad time zone or colour is a field error beside its field, keeps what was typed, and changes nothing', async () => {
    const owner = await consolePerson(t, 'owner');
    const before = (await owner.workspace.api.get('/account')).body.data;
    const refused = await consolePost(t, owner, '/console/settings/workspace', {
      name: 'Renamed',
      currency: before.currency,
      timeZone: 'Mars/Olympus',
      country: '',
      supportEmail: '',
      supportPhone: '',
      brandColor: 'green',
    });
    assert.equal(refused.statusCode, 422, refused.body);
    const main = mainOf(refused.body);
    assert.match(main, /class="problem" role="alert"/);
    assert.match(main, /id="f-timeZone-error">must be an IANA time zone/);
    assert.match(main, /id="f-brandColor-error">must be a colour written #rrggbb/);
    assert.match(main, /id="f-timeZone"[^>]*aria-invalid="true"/);
    assert.match(main, /value="Mars\/Olympus"/);
    assert.match(main, /value="Renamed"/);
    const after = (await owner.workspace.api.get('/account')).body.data;
    assert.equal(after.name, before.name);
    assert.equal(after.timeZone, before.timeZone);
    assert.equal(after.brandColor, before.brandColor);
  });

  test('a collector gets 403 on every settings page, and on every settings form; the Settings item is not in their menu', async () => {
    const collector = await consolePerson(t, 'collector');
    for (const [path] of PAGES) {
      const page = await consoleGet(t, collector, path);
      assert.equal(page.statusCode, 403, path);
      assert.match(page.body, /A collector does not see keys, webhooks or settings/);
    }
    const home = await consoleGet(t, collector, '/console');
    assert.doesNotMatch(home.body, /href="\/console\/settings"/);
    const refused = await consolePost(t, collector, '/console/settings/keys', { access: 'all' });
    assert.equal(refused.statusCode, 403);
    const clock = await consolePost(t, collector, '/console/settings/test-clock', {
      amount: '1',
      unit: 'days',
    });
    assert.equal(clock.statusCode, 403);
  });

  test('a viewer sees every settings page without a single form, and a forged form of theirs is refused', async () => {
    const owner = await consolePerson(t, 'owner');
    const viewer = await consolePerson(t, 'viewer', owner.workspace);
    const home = await consoleGet(t, viewer, '/console');
    assert.match(home.body, /href="\/console\/settings"/);
    for (const [path, heading] of PAGES) {
      const page = await consoleGet(t, viewer, path);
      assert.equal(page.statusCode, 200, path);
      const main = mainOf(page.body);
      assert.match(main, heading, path);
      assert.doesNotMatch(main, /<form/, `${path} shows a form to a viewer`);
      assert.doesNotMatch(main, /whsec_|pt_(test|live)_[0-9A-Za-z]{32}/, path);
    }
    const before = (await owner.workspace.api.get('/account')).body.data;
    const forged: [string, Record<string, string>][] = [
      ['/console/settings/workspace', { name: 'Taken over' }],
      ['/console/settings/people', { email: 'friend@example.com', role: 'owner' }],
      [`/console/settings/people/${owner.id}/role`, { role: 'viewer' }],
      [`/console/settings/people/${owner.id}/remove`, {}],
      ['/console/settings/sessions/ses_000000000000000000000000/end', {}],
      ['/console/settings/keys', { access: 'all' }],
      ['/console/settings/keys/key_x/revoke', {}],
      ['/console/settings/webhooks', { url: 'https://example.com/hooks' }],
      ['/console/settings/webhooks/whe_x/disable', {}],
      ['/console/settings/webhooks/whe_x/resend', { event_id: 'evt_x' }],
      ['/console/settings/exports', { report: 'payments', format: 'csv' }],
      ['/console/settings/test-clock', { amount: '1', unit: 'days' }],
    ];
    for (const [path, fields] of forged) {
      const refused = await consolePost(t, viewer, path, fields);
      assert.equal(refused.statusCode, 403, `${path}: ${refused.statusCode}`);
    }
    const after = (await owner.workspace.api.get('/account')).body.data;
    assert.equal(after.name, before.name);
    const keys = await consoleGet(t, owner, '/console/settings/keys');
    assert.doesNotMatch(mainOf(keys.body), /Taken over/);
    const people = await consoleGet(t, owner, '/console/settings/people');
    assert.doesNotMatch(people.body, /friend@example\.com/);
  });

  test('providers show their state and the last four characters of a key at most, never a secret', async () => {
    const owner = await consolePerson(t, 'owner');
    const viewer = await consolePerson(t, 'viewer', owner.workspace);
    const empty = await consoleGet(t, viewer, '/console/settings/providers');
    assert.match(mainOf(empty.body), /No payment provider is set/);
    await setProviderKey(t, owner.workspaceId, {
      provider: 'stripe',
      mode: 'live',
      secretKey: 'sk_live_0123456789abcdefWXYZ',
      webhookSecret: 'whsec_provider_secret_value',
      rails: 'checkout,debit',
      approved: true,
    });
    const messages = await setMessageProvider(messagesEnv(t, t.ctx.config.publicUrl), owner.workspaceId, {
      provider: 'africastalking',
      credentials: { username: 'mamaput', apiKey: 'atsk_0123456789abcdef9876' },
      args: ['--sms-from', 'MAMAPUT'],
    });
    const token = new URL(messages.callbackUrl).searchParams.get('token') ?? '';
    assert.ok(token.length > 8);
    for (const person of [owner, viewer]) {
      const page = await consoleGet(t, person, '/console/settings/providers');
      assert.equal(page.statusCode, 200);
      const main = mainOf(page.body);
      assert.match(main, /Stripe · Live/);
      assert.match(main, /checkout pages, direct debit/);
      assert.match(main, /ends in WXYZ/);
      assert.match(main, /Live debits approved<\/dt><dd>yes/);
      assert.match(main, /africastalking · Test/);
      assert.match(main, /mamaput …9876/);
      assert.match(main, /MAMAPUT/);
      assert.match(main, new RegExp(`token=…${token.slice(-4)}`));
      assert.doesNotMatch(page.body, /sk_live_0123456789abcdef/);
      assert.doesNotMatch(page.body, /whsec_provider_secret_value/);
      assert.doesNotMatch(page.body, /atsk_0123456789abcdef/);
      assert.doesNotMatch(page.body, new RegExp(token));
    }
  });

  test('in live mode the test clock page says it exists only in test mode, and its form is refused', async () => {
    const owner = await consolePerson(t, 'owner');
    const switched = await consolePost(t, owner, '/console/switch', {
      workspace_id: owner.workspaceId,
      mode: 'live',
    });
    assert.equal(switched.statusCode, 303);
    const page = await consoleGet(t, owner, '/console/settings/test-clock');
    assert.equal(page.statusCode, 200);
    assert.match(mainOf(page.body), /exists only in test mode/);
    assert.doesNotMatch(mainOf(page.body), /<form/);
    const refused = await consolePost(t, owner, '/console/settings/test-clock', {
      amount: '1',
      unit: 'days',
    });
    assert.equal(refused.statusCode, 403);
  });
});
