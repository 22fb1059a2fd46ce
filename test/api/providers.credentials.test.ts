import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../../src/cli/run.js';
import { buildTestApp, freshDatabase, type TestApp } from '../helpers/app.js';
import { Collector, cli, cliEnv, cliJson } from '../helpers/cli.js';

const PAYSTACK_KEY = `sk_test_${randomBytes(20).toString('hex')}`;
const STRIPE_KEY = `sk_test_${randomBytes(24).toString('base64url')}`;
const STRIPE_WHSEC = `whsec_${randomBytes(24).toString('base64url')}`;

describe('provider credentials: set from files, sealed at rest, listed by their last four characters', () => {
  let t: TestApp;
  let env: NodeJS.ProcessEnv;
  let dir: string;
  const file = (name: string, text: string) => {
    const at = path.join(dir, name);
    fs.writeFileSync(at, `${text}\n`, { mode: 0o600 });
    return at;
  };
  const workspace = async () =>
    (await cliJson(env, 'workspace', 'create', '--name', 'Keys', '--json')).id as string;

  before(async () => {
    const database = await freshDatabase();
    t = await buildTestApp({ database });
    env = { ...cliEnv(database), PAYTRACK_SECRET_KEY: randomBytes(32).toString('base64') };
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paytrack-keys-'));
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  test('a key from a file is stored sealed, never printed, and listed by its last four characters', async () => {
    const ws = await workspace();
    const set = await cli(
      env,
      'provider',
      'set',
      '--workspace',
      ws,
      '--provider',
      'paystack',
      '--mode',
      'test',
      '--secret-key-file',
      file('paystack', PAYSTACK_KEY),
      '--rails',
      'checkout,virtual_account,debit',
    );
    assert.equal(set.code, 0, set.stderr);
    assert.ok(!set.stdout.includes(PAYSTACK_KEY));
    assert.match(set.stdout, new RegExp(`key …${PAYSTACK_KEY.slice(-4)}`));
    assert.match(
      set.stdout,
      /Register this webhook URL with paystack: http\S+\/api\/v1\/provider-webhooks\/\S+/,
    );

    const listed = await cli(env, 'provider', 'list', '--workspace', ws, '--json');
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(!listed.stdout.includes(PAYSTACK_KEY));
    const [setting] = JSON.parse(listed.stdout);
    assert.equal(setting.provider, 'paystack');
    assert.equal(setting.keyLast4, PAYSTACK_KEY.slice(-4));
    assert.deepEqual(setting.rails, ['checkout', 'virtual_account', 'debit']);
    assert.match(setting.webhookUrl, new RegExp(`/api/v1/provider-webhooks/${setting.id}$`));

    const row = await t.ctx.db
      .selectFrom('provider_settings')
      .selectAll()
      .where('id', '=', setting.id)
      .executeTakeFirstOrThrow();
    assert.ok(row.secret_key && !row.secret_key.includes(PAYSTACK_KEY.slice(8)));
    assert.match(row.secret_key, /^v1:[0-9a-f]{8}:/);
    const table = await cli(env, 'provider', 'list', '--workspace', ws);
    assert.match(table.stdout, /paystack\s+test\s+checkout,virtual_account,debit\s+no\s+…\S{4}\s+http/);
  });

  test('stdin gives a key with -, and a webhook secret goes with a Stripe key', async () => {
    const ws = await workspace();
    const stdout = new Collector();
    const stderr = new Collector();
    const code = await runCli(
      [
        'provider',
        'set',
        '--workspace',
        ws,
        '--provider',
        'stripe',
        '--mode',
        'test',
        '--secret-key-file',
        '-',
        '--webhook-secret-file',
        file('whsec', STRIPE_WHSEC),
        '--json',
      ],
      { env, stdout, stderr, stdin: Readable.from([`${STRIPE_KEY}\n`]) },
    );
    assert.equal(code, 0, stderr.text);
    const view = JSON.parse(stdout.text);
    assert.equal(view.keyLast4, STRIPE_KEY.slice(-4));
    assert.equal(view.webhookSecretSet, true);
    assert.ok(!stdout.text.includes(STRIPE_KEY) && !stdout.text.includes(STRIPE_WHSEC));
  });

  test('a rail moves to the provider that takes it', async () => {
    const ws = await workspace();
    const key = file('p2', PAYSTACK_KEY);
    await cliJson(
      env,
      'provider',
      'set',
      '--workspace',
      ws,
      '--provider',
      'paystack',
      '--mode',
      'test',
      '--secret-key-file',
      key,
      '--rails',
      'checkout,virtual_account',
      '--json',
    );
    const stripe = await cliJson(
      env,
      'provider',
      'set',
      '--workspace',
      ws,
      '--provider',
      'stripe',
      '--mode',
      'test',
      '--secret-key-file',
      file('s2', STRIPE_KEY),
      '--rails',
      'checkout',
      '--json',
    );
    assert.deepEqual(stripe.rails_moved_from, ['paystack']);
    const listed = await cliJson(env, 'provider', 'list', '--workspace', ws, '--json');
    const rails = Object.fromEntries(
      listed.map((s: { provider: string; rails: string[] }) => [s.provider, s.rails]),
    );
    assert.deepEqual(rails, { paystack: ['virtual_account'], stripe: ['checkout'] });
  });

  test('bad keys, files and rails are refused, naming the option, and change nothing', async () => {
    const ws = await workspace();
    const cases: [string[], RegExp][] = [
      [
        ['--provider', 'paystack', '--mode', 'live', '--secret-key-file', file('t', PAYSTACK_KEY)],
        /--secret-key-file: a live paystack secret key starts with sk_live_/,
      ],
      [
        ['--provider', 'paystack', '--mode', 'test', '--secret-key-file', path.join(dir, 'missing')],
        /--secret-key-file: cannot read .*no such file/,
      ],
      [
        ['--provider', 'paystack', '--mode', 'test', '--secret-key-file', file('empty', '')],
        /--secret-key-file: .* is empty/,
      ],
      [
        ['--provider', 'stripe', '--mode', 'test', '--rails', 'virtual_account'],
        /--rails: stripe does not serve virtual_account/,
      ],
      [['--provider', 'paystack', '--mode', 'test', '--rails', 'cheque'], /--rails: unknown rail 'cheque'/],
      [
        ['--provider', 'paystack', '--mode', 'test', '--webhook-secret-file', file('w', STRIPE_WHSEC)],
        /--webhook-secret-file: paystack signs its webhooks with the secret key/,
      ],
      [
        ['--provider', 'gatewayA', '--mode', 'test', '--secret-key-file', file('g', PAYSTACK_KEY)],
        /--provider: 'gatewayA' has no live adapter/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await cli(env, 'provider', 'set', '--workspace', ws, ...args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stdout}`);
      assert.match(result.stderr, message);
      assert.ok(!result.stderr.includes(PAYSTACK_KEY));
    }
    assert.deepEqual(await cliJson(env, 'provider', 'list', '--workspace', ws, '--json'), []);
  });

  test('without PAYTRACK_SECRET_KEY, or with another one, keys are neither stored nor used', async () => {
    const ws = await workspace();
    await cliJson(
      env,
      'provider',
      'set',
      '--workspace',
      ws,
      '--provider',
      'paystack',
      '--mode',
      'test',
      '--secret-key-file',
      file('k', PAYSTACK_KEY),
      '--json',
    );
    const { PAYTRACK_SECRET_KEY: _unset, ...withoutKey } = env;
    const unkeyed = await cli(
      withoutKey,
      'provider',
      'set',
      '--workspace',
      ws,
      '--provider',
      'stripe',
      '--mode',
      'test',
      '--secret-key-file',
      file('k2', STRIPE_KEY),
    );
    assert.equal(unkeyed.code, 2);
    assert.match(unkeyed.stderr, /PAYTRACK_SECRET_KEY must be set to store a provider key/);

    const worker = await cli(withoutKey, 'worker');
    assert.equal(worker.code, 1);
    assert.match(worker.stderr, /PAYTRACK_SECRET_KEY is not set/);

    const otherKey = { ...env, PAYTRACK_SECRET_KEY: randomBytes(32).toString('base64') };
    const wrong = await cli(
      otherKey,
      'provider',
      'set',
      '--workspace',
      ws,
      '--provider',
      'paystack',
      '--mode',
      'test',
      '--approved',
    );
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /sealed with another PAYTRACK_SECRET_KEY/);

    const malformed = await cli(
      { ...env, PAYTRACK_SECRET_KEY: 'short' },
      'provider',
      'list',
      '--workspace',
      ws,
    );
    assert.notEqual(malformed.code, 0);
    assert.match(malformed.stderr, /PAYTRACK_SECRET_KEY must be 32 random bytes in base64/);
  });

  test('a rotation seals every key again under the new PAYTRACK_SECRET_KEY', async () => {
    const ws = await workspace();
    await cliJson(
      env,
      'provider',
      'set',
      '--workspace',
      ws,
      '--provider',
      'stripe',
      '--mode',
      'test',
      '--secret-key-file',
      file('rk', STRIPE_KEY),
      '--webhook-secret-file',
      file('rw', STRIPE_WHSEC),
      '--json',
    );
    const newKey = randomBytes(32).toString('base64');
    const rotating = {
      ...env,
      PAYTRACK_SECRET_KEY: newKey,
      PAYTRACK_SECRET_KEY_PREVIOUS: env.PAYTRACK_SECRET_KEY,
    };
    const resealed = await cliJson(rotating, 'provider', 'reseal', '--json');
    assert.ok(resealed.resealed >= 1);
    assert.deepEqual(await cliJson(rotating, 'provider', 'reseal', '--json'), { resealed: 0 });
    const rotated = { ...env, PAYTRACK_SECRET_KEY: newKey };
    const after = await cli(
      rotated,
      'provider',
      'set',
      '--workspace',
      ws,
      '--provider',
      'stripe',
      '--mode',
      'test',
      '--approved',
    );
    assert.equal(after.code, 0, after.stderr);
    const old = await cli(
      env,
      'provider',
      'set',
      '--workspace',
      ws,
      '--provider',
      'stripe',
      '--mode',
      'test',
      '--approved',
    );
    assert.equal(old.code, 1);
    assert.match(old.stderr, /sealed with another PAYTRACK_SECRET_KEY/);
    // The other tests of this file go on under the new key.
    env.PAYTRACK_SECRET_KEY = newKey;
  });
});
