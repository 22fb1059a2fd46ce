import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bootstrapIfEmpty } from '../../src/cli/bootstrap.js';
import { ManualClock } from '../../src/lib/clock.js';
import { KEY_FRESH_MS } from '../../src/modules/api-keys/key-cache.js';
import { type Client, client } from '../helpers/api.js';
import { buildTestApp, freshDatabase, type TestApp } from '../helpers/app.js';
import { cli, cliEnv, cliJson, freePort, startCommand } from '../helpers/cli.js';
import { newKey, newTrack, newWorkspace } from '../helpers/factories.js';

const NOW = '2028-01-20T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const SETTINGS = ['name', 'currency', 'timeZone', 'country', 'supportEmail', 'supportPhone', 'brandColor'];

/** The settings part of an account record. */
function settingsOf(account: Record<string, unknown>) {
  return Object.fromEntries(SETTINGS.map((name) => [name, account[name]]));
}

async function account(api: Client) {
  const res = await api.get('/account');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

async function patch(api: Client, body: unknown) {
  const res = await api.patch('/account', body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

describe('GET /account', () => {
  test("shows the workspace's settings at the top, beside what it showed before", async () => {
    const ws = await newWorkspace(t, { currency: 'KES', timezone: 'Africa/Nairobi' });
    const data = await account(ws.api);
    assert.equal(data.id, ws.workspaceId);
    assert.equal(data.mode, 'test');
    assert.deepEqual(settingsOf(data), {
      name: 'Test workspace',
      currency: 'KES',
      timeZone: 'Africa/Nairobi',
      country: null,
      supportEmail: null,
      supportPhone: null,
      brandColor: null,
    });
    assert.equal(data.createdAt, NOW);
    assert.deepEqual(data.workspace, {
      id: ws.workspaceId,
      name: 'Test workspace',
      defaultCurrency: 'KES',
      timezone: 'Africa/Nairobi',
      createdAt: NOW,
    });
    assert.equal(data.livemode, false);
    assert.equal(data.apiKey.scopes, 'all');
  });
});

describe('PATCH /account', () => {
  test('changes each setting, and answers the account as GET shows it', async () => {
    const ws = await newWorkspace(t);
    const changed = await patch(ws.api, {
      name: '  Mama Put Ventures ',
      currency: 'GHS',
      timeZone: 'Africa/Lagos',
      country: 'NG',
      supportEmail: 'help@mamaput.example',
      supportPhone: '0803 123 4567',
      brandColor: '#0A7D4F',
    });
    const expected = {
      name: 'Mama Put Ventures',
      currency: 'GHS',
      timeZone: 'Africa/Lagos',
      country: 'NG',
      supportEmail: 'help@mamaput.example',
      supportPhone: '+2348031234567',
      brandColor: '#0a7d4f',
    };
    assert.deepEqual(settingsOf(changed), expected);
    assert.equal(changed.workspace.defaultCurrency, 'GHS');
    assert.equal(changed.workspace.timezone, 'Africa/Lagos');
    assert.deepEqual(await account(ws.api), changed);

    for (const [field, value, stored] of [
      ['name', 'Ada Stores', 'Ada Stores'],
      ['currency', 'NGN', 'NGN'],
      ['timeZone', 'Europe/London', 'Europe/London'],
      ['country', 'KE', 'KE'],
      ['supportEmail', 'owner@ada.example', 'owner@ada.example'],
      ['supportPhone', '+44 20 7946 0958', '+442079460958'],
      ['brandColor', '#ffcc00', '#ffcc00'],
    ] as const) {
      const one = await patch(ws.api, { [field]: value });
      assert.equal(one[field], stored, field);
    }
    const after = await account(ws.api);
    assert.equal(after.name, 'Ada Stores');
    assert.equal(after.country, 'KE');
  });

  test('null clears the support e-mail, the support phone and the brand colour, and only those', async () => {
    const ws = await newWorkspace(t, { country: 'NG' });
    await patch(ws.api, { supportEmail: 'a@b.example', supportPhone: '08031234567', brandColor: '#123456' });
    const cleared = await patch(ws.api, { supportEmail: null, supportPhone: null, brandColor: null });
    assert.equal(cleared.supportEmail, null);
    assert.equal(cleared.supportPhone, null);
    assert.equal(cleared.brandColor, null);
    assert.equal(cleared.country, 'NG');

    for (const field of ['name', 'currency', 'timeZone', 'country']) {
      const res = await ws.api.patch('/account', { [field]: null });
      assert.equal(res.status, 422, field);
      assert.ok(res.body.error.details.fields[field], `${field}: ${JSON.stringify(res.body)}`);
    }
  });

  test('the support phone is read in the country the same request sets', async () => {
    const ws = await newWorkspace(t, { country: 'NG' });
    const kenya = await patch(ws.api, { country: 'KE', supportPhone: '0712 345 678' });
    assert.equal(kenya.supportPhone, '+254712345678');
    // Read in NG, the same digits are no Kenyan number.
    const res = await ws.api.patch('/account', { country: 'NG', supportPhone: '0712 345 678' });
    assert.equal(res.status, 422);
    assert.match(res.body.error.details.fields.supportPhone, /valid in NG/);
    assert.equal((await account(ws.api)).country, 'KE');
  });

  test('a local support phone without a country says to give the country code or set the country', async () => {
    const ws = await newWorkspace(t);
    const res = await ws.api.patch('/account', { supportPhone: '08031234567' });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'validation_error');
    assert.match(res.body.error.details.fields.supportPhone, /country code/);
    assert.match(res.body.error.details.fields.supportPhone, /workspace's country/);
    assert.equal((await patch(ws.api, { supportPhone: '+2348031234567' })).supportPhone, '+2348031234567');
  });

  const refusals: [string, Record<string, unknown>, string, RegExp][] = [
    ['an empty name', { name: '' }, 'name', /1 to 200/],
    ['a name of spaces', { name: '   ' }, 'name', /not only spaces/],
    ['a name over 200 characters', { name: 'x'.repeat(201) }, 'name', /200/],
    ['a lower-case currency', { currency: 'ngn' }, 'currency', /ISO 4217/],
    ['a currency that does not exist', { currency: 'ABC' }, 'currency', /ISO 4217/],
    ['a time zone that does not exist', { timeZone: 'Mars/Olympus' }, 'timeZone', /IANA/],
    ['an offset for a time zone', { timeZone: '+01:00' }, 'timeZone', /IANA/],
    ['a country that does not exist', { country: 'ZZ' }, 'country', /ISO 3166-1/],
    ['a lower-case country', { country: 'ng' }, 'country', /ISO 3166-1/],
    ['a country name', { country: 'Nigeria' }, 'country', /./],
    ['an e-mail without @', { supportEmail: 'help.example.com' }, 'supportEmail', /e-mail/],
    ['a phone that is not a number', { supportPhone: 'call us' }, 'supportPhone', /phone/],
    ['a colour name', { brandColor: 'green' }, 'brandColor', /#rrggbb/],
    ['a short colour', { brandColor: '#abc' }, 'brandColor', /#rrggbb/],
    ['a number for a name', { name: 42 }, 'name', /string/],
    ['an unknown field', { payoutSchedule: {} }, 'payoutSchedule', /not an accepted field/],
    ['a misspelt field', { timezone: 'Africa/Lagos' }, 'timezone', /not an accepted field/],
    ['an empty body', {}, 'body', /at least one/],
  ];
  for (const [what, body, field, problem] of refusals) {
    test(`refuses ${what}, naming ${field}, and changes nothing`, async () => {
      const ws = await newWorkspace(t, { country: 'NG' });
      const before = await account(ws.api);
      const res = await ws.api.patch('/account', body);
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'validation_error');
      assert.match(res.body.error.details.fields[field] ?? '', problem, JSON.stringify(res.body));
      assert.deepEqual(await account(ws.api), before);
    });
  }

  test('names every bad field at once, and changes none of the good ones beside them', async () => {
    const ws = await newWorkspace(t);
    const before = await account(ws.api);
    const res = await ws.api.patch('/account', {
      name: 'Good name',
      currency: 'usd',
      timeZone: 'Nowhere/Else',
      country: 'XX',
      supportEmail: 'nope',
      supportPhone: '0803',
      brandColor: 'red',
    });
    assert.equal(res.status, 422);
    assert.deepEqual(Object.keys(res.body.error.details.fields).sort(), [
      'brandColor',
      'country',
      'currency',
      'supportEmail',
      'supportPhone',
      'timeZone',
    ]);
    assert.deepEqual(await account(ws.api), before);
  });

  test('a body that is not a JSON object is refused; no body is a validation_error', async () => {
    const ws = await newWorkspace(t);
    assert.equal((await ws.api.patch('/account', '[1]')).status, 400);
    const none = await ws.api.patch('/account');
    assert.equal(none.status, 422);
    assert.match(none.body.error.details.fields.body, /at least one/);
  });
});

describe('scopes and modes', () => {
  test('account:read reads but cannot change; account:write changes', async () => {
    const ws = await newWorkspace(t);
    const reader = await newKey(t, ws.workspaceId, { scopes: ['account:read'] });
    assert.equal((await reader.api.get('/account')).status, 200);
    const refused = await reader.api.patch('/account', { name: 'Not allowed' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'forbidden');
    assert.equal(refused.body.error.details.required_scope, 'account:write');
    assert.equal((await account(ws.api)).name, 'Test workspace');

    const writer = await newKey(t, ws.workspaceId, { scopes: ['account:write'] });
    assert.equal((await patch(writer.api, { name: 'Allowed' })).name, 'Allowed');
    const other = await newKey(t, ws.workspaceId, { scopes: ['customers:write'] });
    assert.equal((await other.api.patch('/account', { name: 'No' })).status, 403);
  });

  test('a live key changes the one workspace both modes share, and each sees what the other set', async () => {
    const ws = await newWorkspace(t);
    const live = await patch(ws.live, { name: 'Live set', country: 'NG', currency: 'GHS' });
    assert.equal(live.mode, 'live');
    assert.equal(live.livemode, true);
    const seen = await account(ws.api);
    assert.equal(seen.mode, 'test');
    assert.deepEqual(settingsOf(seen), settingsOf(live));
    await patch(ws.api, { brandColor: '#010203' });
    assert.equal((await account(ws.live)).brandColor, '#010203');
  });

  test("another workspace's settings are untouched", async () => {
    const one = await newWorkspace(t);
    const two = await newWorkspace(t);
    await patch(one.api, { name: 'First', currency: 'KES' });
    const other = await account(two.api);
    assert.equal(other.name, 'Test workspace');
    assert.equal(other.currency, 'NGN');
  });
});

describe('what the settings change', () => {
  test('a plan made after a currency change takes the new currency, in test and live mode; plans made before keep theirs', async () => {
    const ws = await newWorkspace(t);
    const before = await newTrack(ws.api);
    assert.equal(before.currency, 'NGN');
    await patch(ws.api, { currency: 'GHS' });
    assert.equal((await newTrack(ws.api)).currency, 'GHS');
    assert.equal((await newTrack(ws.live)).currency, 'GHS');
    assert.equal((await ws.api.get(`/tracks/${before.id}`)).body.data.currency, 'NGN');
    assert.equal((await newTrack(ws.api, { currency: 'USD' })).currency, 'USD');
  });

  test("a new schedule's due dates are in the new time zone; existing due dates and schedules stay", async () => {
    const ws = await newWorkspace(t);
    const body = {
      target_type: 'generic_collection',
      frequency: 'monthly',
      fixed_amount: 1_000,
      // 23:30 UTC on 10 February is already 11 February in Lagos (UTC+1).
      start_date: '2028-02-10T23:30:00Z',
      end_date: '2028-04-11T00:00:00Z',
    };
    const dueDates = async (id: string) => {
      const res = await ws.api.get(`/collection-schedules/${id}/obligations?limit=100`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data.items.map((o: { due_date: string }) => o.due_date).sort();
    };
    const old = await ws.api.post('/collection-schedules', body);
    assert.equal(old.status, 201, JSON.stringify(old.body));
    assert.equal(old.body.data.timezone, 'UTC');
    assert.deepEqual(await dueDates(old.body.data.id), ['2028-02-10', '2028-03-10', '2028-04-10']);

    await patch(ws.api, { timeZone: 'Africa/Lagos' });

    const made = await ws.api.post('/collection-schedules', body);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.data.timezone, 'Africa/Lagos');
    assert.deepEqual(await dueDates(made.body.data.id), ['2028-02-11', '2028-03-11', '2028-04-11']);
    assert.deepEqual(await dueDates(old.body.data.id), ['2028-02-10', '2028-03-10', '2028-04-10']);
    assert.equal((await ws.api.get(`/collection-schedules/${old.body.data.id}`)).body.data.timezone, 'UTC');
  });

  test('the OpenAPI document explains what a time zone change applies to', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    const operation = JSON.parse(res.body).paths['/api/v1/account'].patch;
    assert.equal(operation.operationId, 'updateAccount');
    assert.match(operation.description, /Existing due dates stay/);
  });
});

describe('paytrack workspace update', () => {
  test('changes the settings given and prints the workspace; the API sees them', async () => {
    const env = cliEnv(t.database);
    const ws = await newWorkspace(t);
    const updated = await cliJson(
      env,
      'workspace',
      'update',
      ws.workspaceId,
      '--name',
      'Duka Moja',
      '--currency',
      'KES',
      '--timezone',
      'Africa/Nairobi',
      '--country',
      'KE',
      '--support-email',
      'help@duka.example',
      '--support-phone',
      '0712 345 678',
      '--brand-color',
      '#AA00CC',
      '--json',
    );
    assert.equal(updated.id, ws.workspaceId);
    assert.equal(updated.name, 'Duka Moja');
    assert.equal(updated.defaultCurrency, 'KES');
    assert.equal(updated.timezone, 'Africa/Nairobi');
    assert.equal(updated.country, 'KE');
    assert.equal(updated.supportEmail, 'help@duka.example');
    assert.equal(updated.supportPhone, '+254712345678');
    assert.equal(updated.brandColor, '#aa00cc');
    assert.deepEqual(settingsOf(await account(ws.live)), {
      name: 'Duka Moja',
      currency: 'KES',
      timeZone: 'Africa/Nairobi',
      country: 'KE',
      supportEmail: 'help@duka.example',
      supportPhone: '+254712345678',
      brandColor: '#aa00cc',
    });
    // The server reads its keys' workspace again within KEY_FRESH_MS: new plans take the new currency.
    t.clock.advance(KEY_FRESH_MS);
    assert.equal((await newTrack(ws.api)).currency, 'KES');

    const plain = await cli(env, 'workspace', 'update', ws.workspaceId, '--support-email', '');
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /Updated workspace ws_\w+ 'Duka Moja' \(KES, Africa\/Nairobi, KE\)/);
    assert.equal((await account(ws.api)).supportEmail, null);
  });

  test('bad usage exits with status 2 naming the option, and changes nothing', async () => {
    const env = cliEnv(t.database);
    const ws = await newWorkspace(t);
    const before = await account(ws.api);
    const id = ws.workspaceId;
    const cases: [string[], RegExp][] = [
      [[], /exactly one workspace ID/],
      [[id, 'ws_other', '--name', 'X'], /exactly one workspace ID/],
      [[id], /at least one setting/],
      [[id, '--name', '  '], /--name must be 1 to 200/],
      [[id, '--currency', 'usd'], /--currency must be an ISO 4217/],
      [[id, '--timezone', 'Mars/Olympus'], /--timezone must be an IANA/],
      [[id, '--country', 'ZZ'], /--country must be an ISO 3166-1/],
      [[id, '--support-email', 'nope'], /--support-email must be an e-mail/],
      [[id, '--brand-color', 'green'], /--brand-color must be a colour/],
      [[id, '--support-phone', '08031234567'], /--support-phone has no country code/],
      [[id, '--name', 'Fine', '--currency', 'usd', '--country', 'ng'], /--currency[\s\S]*--country/],
      [[id, '--nmae', 'X'], /Unknown option '--nmae'/],
      [[id, '--name'], /--name/],
    ];
    for (const [argv, message] of cases) {
      const result = await cli(env, 'workspace', 'update', ...argv);
      assert.equal(result.code, 2, `workspace update ${argv.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, `workspace update ${argv.join(' ')}`);
      assert.equal(result.stdout, '');
    }
    assert.deepEqual(await account(ws.api), before);
  });

  test('an unknown workspace exits with status 1', async () => {
    const result = await cli(cliEnv(t.database), 'workspace', 'update', 'ws_nope', '--name', 'X');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /no workspace 'ws_nope'/);
  });

  test('--help lists every option; the command list shows it', async () => {
    const env = cliEnv(t.database);
    const help = await cli(env, 'workspace', 'update', '--help');
    assert.equal(help.code, 0);
    for (const option of [
      '--name',
      '--currency',
      '--timezone',
      '--country',
      '--support-email',
      '--support-phone',
      '--brand-color',
      '--json',
    ]) {
      assert.match(help.stdout, new RegExp(option));
    }
    const main = await cli(env, '--help');
    assert.match(main.stdout, /paytrack workspace update ID/);
    assert.match(main.stdout, /PAYTRACK_CURRENCY/);
  });

  test('workspace create takes --country, and refuses one that does not exist', async () => {
    const env = cliEnv(t.database);
    const created = await cliJson(
      env,
      'workspace',
      'create',
      '--name',
      'Lagos shop',
      '--country',
      'NG',
      '--json',
    );
    assert.equal(created.country, 'NG');
    const bad = await cli(env, 'workspace', 'create', '--name', 'X', '--country', 'Nigeria');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--country must be an ISO 3166-1/);
  });
});

describe('first start on an empty database', () => {
  test('bootstrap makes the workspace with the settings given, else the defaults', async () => {
    const database = await freshDatabase();
    const app = await buildTestApp({ database });
    try {
      const created = await bootstrapIfEmpty(app.ctx, {
        name: 'Mama Put Ventures',
        currency: 'NGN',
        timezone: 'Africa/Lagos',
        country: 'NG',
      });
      assert.ok(created);
      const data = await account(client(app, created.key.key));
      assert.deepEqual(settingsOf(data), {
        name: 'Mama Put Ventures',
        currency: 'NGN',
        timeZone: 'Africa/Lagos',
        country: 'NG',
        supportEmail: null,
        supportPhone: null,
        brandColor: null,
      });
    } finally {
      await app.close();
    }
    const plain = await buildTestApp();
    try {
      const created = await bootstrapIfEmpty(plain.ctx);
      assert.ok(created);
      assert.equal(created.workspace.name, 'Default workspace');
      assert.equal(created.workspace.default_currency, 'USD');
      assert.equal(created.workspace.timezone, 'UTC');
      assert.equal(created.workspace.country, null);
    } finally {
      await plain.close();
    }
  });

  async function firstServe(args: string[], extraEnv: Record<string, string>) {
    const database = await freshDatabase();
    const port = await freePort();
    const env = {
      ...cliEnv(database),
      HOST: '127.0.0.1',
      PORT: String(port),
      EMBEDDED_WORKER: 'false',
      ...extraEnv,
    };
    const served = await startCommand(['serve', ...args], env, 'listening on');
    await served.stdout.waitFor('API reference');
    const key = /pt_test_[0-9A-Za-z]{32}/.exec(served.stdout.text)?.[0];
    assert.ok(key, served.stdout.text);
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/account`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(res.status, 200);
    const data = ((await res.json()) as { data: Record<string, unknown> }).data;
    return { database, env, served, data };
  }

  test('serve --name --currency --timezone --country makes the first workspace so, and a later start leaves it', async () => {
    const { database, env, served, data } = await firstServe(
      ['--name', 'Mama Put Ventures', '--currency', 'NGN', '--timezone', 'Africa/Lagos', '--country', 'NG'],
      {},
    );
    try {
      assert.match(served.stdout.text, /workspace 'Mama Put Ventures' \(ws_\w+, NGN, Africa\/Lagos, NG\)/);
      assert.deepEqual(
        [data.name, data.currency, data.timeZone, data.country],
        ['Mama Put Ventures', 'NGN', 'Africa/Lagos', 'NG'],
      );
      assert.equal(await served.stop(), 0);

      const again = await startCommand(['serve', '--currency', 'KES'], env, 'listening on');
      await again.stdout.waitFor('first-start settings were not used');
      assert.doesNotMatch(again.stdout.text, /pt_test_/);
      assert.equal(await again.stop(), 0);
      const handle = database.open();
      const rows = await handle.db.selectFrom('workspaces').select(['default_currency']).execute();
      await handle.close();
      assert.deepEqual(rows, [{ default_currency: 'NGN' }]);
    } finally {
      await database.drop();
    }
  });

  test('PAYTRACK_NAME, PAYTRACK_CURRENCY, PAYTRACK_TIMEZONE and PAYTRACK_COUNTRY do the same; a flag wins over its variable', async () => {
    const { database, served, data } = await firstServe(['--currency', 'NGN'], {
      PAYTRACK_NAME: 'Env shop',
      PAYTRACK_CURRENCY: 'GHS',
      PAYTRACK_TIMEZONE: 'Africa/Accra',
      PAYTRACK_COUNTRY: 'GH',
    });
    try {
      assert.deepEqual(
        [data.name, data.currency, data.timeZone, data.country],
        ['Env shop', 'NGN', 'Africa/Accra', 'GH'],
      );
      assert.equal(await served.stop(), 0);
    } finally {
      await database.drop();
    }
  });

  test('a bad first-start variable or flag stops serve with status 2, naming it, before anything is made', async () => {
    const database = await freshDatabase();
    try {
      const env = { ...cliEnv(database), HOST: '127.0.0.1', PORT: String(await freePort()) };
      for (const [extra, args, message] of [
        [{ PAYTRACK_COUNTRY: 'Nigeria' }, [], /PAYTRACK_COUNTRY must be an ISO 3166-1/],
        [{ PAYTRACK_CURRENCY: 'naira' }, [], /PAYTRACK_CURRENCY must be an ISO 4217/],
        [{ PAYTRACK_TIMEZONE: 'Lagos' }, [], /PAYTRACK_TIMEZONE must be an IANA/],
        [{ PAYTRACK_NAME: ' ' }, [], /PAYTRACK_NAME must be 1 to 200/],
        [{}, ['--currency', 'naira'], /--currency must be an ISO 4217/],
        [{}, ['--country', 'ng'], /--country must be an ISO 3166-1/],
        [{}, ['--colour', 'red'], /Unknown option '--colour'/],
      ] as [Record<string, string>, string[], RegExp][]) {
        const result = await cli({ ...env, ...extra }, 'serve', ...args);
        assert.equal(
          result.code,
          2,
          `${JSON.stringify(extra)} ${args.join(' ')}: ${result.stdout}${result.stderr}`,
        );
        assert.match(result.stderr, message);
        assert.doesNotMatch(result.stdout, /listening/);
      }
      const help = await cli(env, 'serve', '--help');
      assert.equal(help.code, 0);
      for (const name of [
        '--name',
        '--currency',
        '--timezone',
        '--country',
        'PAYTRACK_NAME',
        'PAYTRACK_COUNTRY',
      ]) {
        assert.match(help.stdout, new RegExp(name));
      }
    } finally {
      await database.drop();
    }
  });
});
