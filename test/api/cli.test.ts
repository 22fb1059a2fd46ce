import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { bootstrapIfEmpty } from '../../src/cli/bootstrap.js';
import { KEY_FRESH_MS } from '../../src/modules/api-keys/key-cache.js';
import { client } from '../helpers/api.js';
import { buildTestApp, freshDatabase, type TestApp } from '../helpers/app.js';
import { cli, cliEnv, cliJson, freePort, startCommand } from '../helpers/cli.js';
import { startReceiver } from '../helpers/receiver.js';

const KEY_FORM = /pt_test_[0-9A-Za-z]{32}/;
const KEY_WORKSPACE = /workspace 'Default workspace' \((ws_[0-9A-Z]+)/;

describe('paytrack command line', () => {
  let t: TestApp;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    const database = await freshDatabase();
    t = await buildTestApp({ database });
    env = cliEnv(database);
  });
  after(() => t.close());

  async function workspaceId(): Promise<string> {
    return (await cliJson(env, 'workspace', 'create', '--name', 'CLI shop', '--json')).id;
  }

  test('workspace create --json prints the new workspace', async () => {
    const result = await cli(
      env,
      'workspace',
      'create',
      '--name',
      'Mama Put Ventures',
      '--currency',
      'NGN',
      '--timezone',
      'Africa/Lagos',
      '--json',
    );
    assert.equal(result.code, 0, result.stderr);
    const workspace = JSON.parse(result.stdout);
    assert.match(workspace.id, /^ws_/);
    assert.equal(workspace.name, 'Mama Put Ventures');
    assert.equal(workspace.defaultCurrency, 'NGN');
    assert.equal(workspace.timezone, 'Africa/Lagos');
  });

  test('workspace create without --json says what to do next', async () => {
    const result = await cli(env, 'workspace', 'create', '--name', 'Plain');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Created workspace ws_\S+ 'Plain' \(USD, UTC\)/);
    assert.match(result.stdout, /paytrack key create --workspace ws_/);
  });

  test('key create --json prints only id and key, and the server accepts the key at once', async () => {
    const ws = await workspaceId();
    const result = await cli(env, 'key', 'create', '--workspace', ws, '--mode', 'test', '--json');
    assert.equal(result.code, 0, result.stderr);
    const created = JSON.parse(result.stdout);
    assert.deepEqual(Object.keys(created).sort(), ['id', 'key']);
    assert.match(created.id, /^key_/);
    assert.match(created.key, /^pt_test_[0-9A-Za-z]{32}$/);

    const api = client(t, created.key);
    const customer = await api.post('/customers', { name: 'Ada Obi', phone: '+2348031234567' });
    assert.equal(customer.status, 201, JSON.stringify(customer.body));
    assert.equal((await api.get('/customers')).status, 200);
  });

  test('key create with --scopes limits the key to them', async () => {
    const ws = await workspaceId();
    const result = await cli(
      env,
      'key',
      'create',
      '--workspace',
      ws,
      '--mode',
      'live',
      '--scopes',
      'customers:read, tracks:write',
      '--name',
      'reporting',
      '--json',
    );
    assert.equal(result.code, 0, result.stderr);
    const { key } = JSON.parse(result.stdout);
    assert.match(key, /^pt_live_/);
    const api = client(t, key);
    assert.equal((await api.get('/customers')).status, 200);
    assert.equal((await api.get('/tracks')).status, 200);
    const refused = await api.post('/customers', { name: 'Ada Obi', phone: '+2348031234567' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.details.required_scope, 'customers:write');
  });

  test('key create without --json shows the key once with its id', async () => {
    const ws = await workspaceId();
    const result = await cli(env, 'key', 'create', '--workspace', ws, '--mode', 'test');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Created test key key_\S+ for workspace ws_\S+ \(all scopes\)/);
    assert.match(result.stdout, KEY_FORM);
  });

  test('key create for an unknown workspace fails with status 1 and creates nothing', async () => {
    const result = await cli(env, 'key', 'create', '--workspace', 'ws_NOPE', '--mode', 'test', '--json');
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /no workspace 'ws_NOPE'/);
    const rows = await t.ctx.db
      .selectFrom('api_keys')
      .select('id')
      .where('workspace_id', '=', 'ws_NOPE')
      .execute();
    assert.equal(rows.length, 0);
  });

  test("key create refuses a key beyond the plan's limit of active keys; revoking one makes room", async () => {
    const ws = await workspaceId();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      ids.push(
        (await cliJson(env, 'key', 'create', '--workspace', ws, '--mode', i % 2 ? 'live' : 'test', '--json'))
          .id,
      );
    }
    const refused = await cli(env, 'key', 'create', '--workspace', ws, '--mode', 'test', '--json');
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /limit of 10 active API keys/);
    assert.equal((await cli(env, 'key', 'revoke', ids[0] as string)).code, 0);
    assert.equal((await cli(env, 'key', 'create', '--workspace', ws, '--mode', 'test', '--json')).code, 0);
  });

  test('key list shows every key of the workspace and never the key itself', async () => {
    const ws = await workspaceId();
    const first = await cliJson(env, 'key', 'create', '--workspace', ws, '--mode', 'test', '--json');
    const second = await cliJson(
      env,
      'key',
      'create',
      '--workspace',
      ws,
      '--mode',
      'live',
      '--scopes',
      'tracks:read',
      '--json',
    );

    const listed = await cli(env, 'key', 'list', '--workspace', ws, '--json');
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(!listed.stdout.includes(first.key) && !listed.stdout.includes(second.key));
    const keys = JSON.parse(listed.stdout);
    assert.deepEqual(
      keys.map((k: { id: string }) => k.id),
      [first.id, second.id],
    );
    assert.equal(keys[0].mode, 'test');
    assert.equal(keys[0].scopes, 'all');
    assert.equal(keys[0].prefix, first.key.slice(0, 12));
    assert.deepEqual(keys[1].scopes, ['tracks:read']);
    assert.equal(keys[1].revokedAt, null);
    for (const key of keys) assert.ok(!('key' in key) && !('key_hash' in key) && !('keyHash' in key));

    const table = await cli(env, 'key', 'list', '--workspace', ws);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^ID\s+MODE\s+PREFIX/);
    assert.ok(table.stdout.includes(first.id) && table.stdout.includes(second.id));
    assert.ok(!table.stdout.includes(first.key));
  });

  test('key list of an unknown workspace fails with status 1', async () => {
    const result = await cli(env, 'key', 'list', '--workspace', 'ws_NOPE');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /no workspace 'ws_NOPE'/);
  });

  test('key revoke makes the server refuse the key within one second', async () => {
    const ws = await workspaceId();
    const created = await cliJson(env, 'key', 'create', '--workspace', ws, '--mode', 'test', '--json');
    const api = client(t, created.key);
    assert.equal((await api.get('/customers')).status, 200);

    const revoked = await cli(env, 'key', 'revoke', created.id);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, new RegExp(`Revoked key ${created.id}`));

    // The server answers from the key it read a moment ago, for less than a second of its clock.
    t.clock.advance(KEY_FRESH_MS);
    const refused = await api.get('/customers');
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'unauthorized');

    const again = await cli(env, 'key', 'revoke', created.id);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already revoked/);
    const listed = await cliJson(env, 'key', 'list', '--workspace', ws, '--json');
    assert.ok(listed[0].revokedAt);
  });

  test('key revoke of an unknown key fails with status 1', async () => {
    const result = await cli(env, 'key', 'revoke', 'key_NOPE');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /no key 'key_NOPE'/);
  });

  test('jobs lists the failed jobs with their last error, and counts every status', async () => {
    const now = t.clock.now().toISOString();
    // A job whose payload cannot be read fails at once and is kept.
    await t.ctx.db
      .insertInto('jobs')
      .values({
        id: 'job_01TESTUNREADABLEJOB00000',
        name: 'webhooks.deliver',
        payload: '{"eventId":5}',
        status: 'pending',
        attempts: 0,
        max_attempts: 0,
        run_at: now,
        locked_by: null,
        locked_until: null,
        last_error: null,
        group_key: null,
        dedupe_key: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await t.worker.drain();

    const listed = await cliJson(env, 'jobs', '--json');
    assert.ok(listed.counts.failed >= 1);
    assert.equal(typeof listed.counts.pending, 'number');
    const failed = listed.jobs.find((job: { id: string }) => job.id === 'job_01TESTUNREADABLEJOB00000');
    assert.equal(failed.status, 'failed');
    assert.equal(failed.name, 'webhooks.deliver');
    assert.equal(failed.attempts, 1);
    assert.match(failed.lastError, /payload of webhooks\.deliver is not valid/);

    const text = await cli(env, 'jobs');
    assert.equal(text.code, 0);
    assert.match(text.stdout, /failed/);
    assert.match(text.stdout, /job_01TESTUNREADABLEJOB00000 +webhooks\.deliver +failed/);
    assert.equal((await cli(env, 'jobs', '--status', 'done')).code, 2);
    assert.equal((await cli(env, 'jobs', '--limit', '0')).code, 2);
  });

  test('workspace list shows every workspace, as a table or as JSON', async () => {
    const ws = await workspaceId();
    const listed = await cliJson(env, 'workspace', 'list', '--json');
    const mine = listed.find((w: { id: string }) => w.id === ws);
    assert.deepEqual(
      { name: mine.name, defaultCurrency: mine.defaultCurrency, timezone: mine.timezone },
      { name: 'CLI shop', defaultCurrency: 'USD', timezone: 'UTC' },
    );
    const text = await cli(env, 'workspace', 'list');
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`${ws} +CLI shop +USD +UTC`));
  });

  test('a database that cannot be reached is named in the error', async () => {
    const unreachable = { ...env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/paytrack' };
    const result = await cli(unreachable, 'workspace', 'list');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /cannot open PostgreSQL at 127\.0\.0\.1:1\/paytrack/);
  });

  test('a database reached through a Unix socket directory is named in the error', async () => {
    const unreachable = { ...env, DATABASE_URL: 'postgres://nobody@/paytrack?host=/nonexistent-socket-dir' };
    const result = await cli(unreachable, 'workspace', 'list');
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      /cannot open PostgreSQL at the socket in \/nonexistent-socket-dir, database paytrack/,
    );
  });

  test('an error names the database the command opened', async () => {
    const result = await cli(env, 'key', 'list', '--workspace', 'ws_nowhere');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /no workspace 'ws_nowhere'/);
    assert.match(
      result.stderr,
      t.handle.dialect === 'postgres' ? /PostgreSQL at / : /SQLite at .*paytrack\.db/,
    );
  });

  test('migrate on an up-to-date database applies nothing', async () => {
    const result = await cli(env, 'migrate');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /up to date; no migration to apply/);
  });

  test('bad usage exits with status 2 and says what is wrong', async () => {
    const cases: [string[], RegExp][] = [
      [[], /Usage: paytrack <command>/],
      [['frobnicate'], /unknown command 'frobnicate'/],
      [['key'], /Usage: paytrack key <command>/],
      [['key', 'rotate'], /unknown command 'rotate'/],
      [['workspace', 'create'], /--name is required/],
      [['workspace', 'create', '--name', 'X', '--currency', 'usd'], /--currency must be an ISO 4217/],
      [['workspace', 'create', '--name', 'X', '--timezone', 'Mars/Olympus'], /--timezone must be an IANA/],
      [['workspace', 'create', '--nmae', 'X'], /Unknown option '--nmae'/],
      [['workspace', 'create', '--name'], /--name/],
      [['key', 'create', '--mode', 'test'], /--workspace is required/],
      [['key', 'create', '--workspace', 'ws_1'], /--mode is required/],
      [['key', 'create', '--workspace', 'ws_1', '--mode', 'prod'], /--mode must be test or live/],
      [
        ['key', 'create', '--workspace', 'ws_1', '--mode', 'test', '--scopes', 'tracks:read,bogus:write'],
        /'bogus:write'/,
      ],
      [['key', 'create', '--workspace', 'ws_1', '--mode', 'test', '--scopes', ','], /at least one scope/],
      [['key', 'list'], /--workspace is required/],
      [['key', 'revoke'], /exactly one KEY_ID/],
      [['key', 'revoke', 'key_1', 'key_2'], /exactly one KEY_ID/],
      [['migrate', 'now'], /Unexpected argument 'now'/],
    ];
    for (const [argv, message] of cases) {
      const result = await cli(env, ...argv);
      assert.equal(result.code, 2, `paytrack ${argv.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, `paytrack ${argv.join(' ')}`);
      assert.equal(result.stdout, '', `paytrack ${argv.join(' ')}`);
    }
  });

  test('a bad configuration exits with status 2 and names the variable', async () => {
    const result = await cli({ ...env, LOG_LEVEL: 'loud' }, 'workspace', 'create', '--name', 'X');
    assert.equal(result.code, 2);
    assert.match(result.stderr, /LOG_LEVEL must be one of/);
  });

  test('--help prints usage with status 0', async () => {
    const main = await cli(env, '--help');
    assert.equal(main.code, 0);
    assert.match(main.stdout, /paytrack key create --workspace ID --mode test\|live/);
    const sub = await cli(env, 'key', 'create', '--help');
    assert.equal(sub.code, 0);
    assert.match(sub.stdout, /--scopes LIST/);
  });
});

describe('the command line never creates a database by accident', () => {
  test('commands other than serve, migrate and workspace create refuse a database that does not exist', async () => {
    const empty = await freshDatabase();
    try {
      const env = cliEnv(empty);
      for (const argv of [
        ['key', 'list', '--workspace', 'ws_x'],
        ['key', 'create', '--workspace', 'ws_x', '--mode', 'test'],
        ['workspace', 'list'],
        ['jobs'],
      ]) {
        const result = await cli(env, ...argv);
        assert.equal(result.code, 1, `${argv.join(' ')}: ${result.stdout}${result.stderr}`);
        assert.match(result.stderr, /no paytrack database/);
        assert.match(result.stderr, /paytrack migrate/);
        assert.match(result.stderr, empty.schema ? /PostgreSQL at / : new RegExp(empty.dataDir));
      }
      if (empty.schema) {
        const { Client } = (await import('pg')).default;
        const pg = new Client({ connectionString: empty.databaseUrl });
        await pg.connect();
        const tables = await pg.query(
          'select table_name from information_schema.tables where table_schema = $1',
          [empty.schema],
        );
        await pg.end();
        assert.deepEqual(tables.rows, [], 'no table was created');
      } else {
        assert.deepEqual(fs.readdirSync(empty.dataDir), [], 'no database file was created');
      }
      // workspace create may make one: it is how a database starts.
      const created = await cli(env, 'workspace', 'create', '--name', 'First', '--json');
      assert.equal(created.code, 0, created.stderr);
      assert.equal((await cli(env, 'workspace', 'list', '--json')).code, 0);
    } finally {
      await empty.drop();
    }
  });
});

describe('first start on an empty database', () => {
  test('bootstrap creates one workspace and one all-scopes test key, once', async () => {
    const database = await freshDatabase();
    const t = await buildTestApp({ database });
    try {
      const created = await bootstrapIfEmpty(t.ctx);
      assert.ok(created);
      assert.equal(created.workspace.name, 'Default workspace');
      assert.equal(created.workspace.default_currency, 'USD');
      assert.equal(created.key.mode, 'test');
      assert.equal(created.key.scopes, 'all');
      assert.equal((await client(t, created.key.key).get('/customers')).status, 200);
      assert.equal(created.owner.email, 'owner@example.com');
      const link = await t.app.inject({
        method: 'POST',
        url: `/console/set-password/${created.owner.token}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'password=first+owner+password',
      });
      assert.equal(link.statusCode, 303, 'the first owner sets a password through the printed link');
      const cookie = String(link.headers['set-cookie']).split(';')[0] as string;
      const overview = await t.app.inject({ method: 'GET', url: '/console', headers: { cookie } });
      assert.match(overview.body, /owner@example\.com \(owner\)/);

      assert.equal(await bootstrapIfEmpty(t.ctx), null);
      assert.equal((await t.ctx.db.selectFrom('workspaces').select('id').execute()).length, 1);
      assert.equal((await t.ctx.db.selectFrom('api_keys').select('id').execute()).length, 1);
    } finally {
      await t.close();
    }
  });

  test('bootstraps started together create one workspace between them', async () => {
    // On PostgreSQL the pool runs these on separate connections, as two nodes starting at once would.
    const t = await buildTestApp();
    try {
      const results = await Promise.all([
        bootstrapIfEmpty(t.ctx),
        bootstrapIfEmpty(t.ctx),
        bootstrapIfEmpty(t.ctx),
      ]);
      assert.equal(results.filter((r) => r !== null).length, 1);
      assert.equal((await t.ctx.db.selectFrom('workspaces').select('id').execute()).length, 1);
      assert.equal((await t.ctx.db.selectFrom('api_keys').select('id').execute()).length, 1);
    } finally {
      await t.close();
    }
  });

  test('serve prints a working test key and a curl example on the first start only, and stops cleanly', async () => {
    const database = await freshDatabase();
    try {
      const port = await freePort();
      const env = { ...cliEnv(database), HOST: '127.0.0.1', PORT: String(port) };

      const first = await startCommand(['serve'], env, 'listening on');
      const key = KEY_FORM.exec(first.stdout.text)?.[0];
      assert.ok(key, first.stdout.text);
      assert.match(first.stdout.text, /curl -s "\$PAYTRACK_API/);
      assert.match(first.stdout.text, /post \/tracks/);
      assert.match(first.stdout.text, /post \/payments/);
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/customers`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(response.status, 200);
      assert.equal(await first.stop(), 0);

      // Another port: a connection the client kept to the first server must not be taken for one to the second.
      const secondPort = await freePort();
      const second = await startCommand(['serve'], { ...env, PORT: String(secondPort) }, 'listening on');
      assert.doesNotMatch(second.stdout.text, /pt_test_/);
      assert.equal((await fetch(`http://127.0.0.1:${secondPort}/health`)).status, 200);
      assert.equal(await second.stop(), 0);
      assert.match(second.stdout.text, /shutting down/);

      const listed = await cli(
        env,
        'key',
        'list',
        '--workspace',
        KEY_WORKSPACE.exec(first.stdout.text)?.[1] ?? '',
      );
      assert.equal(listed.code, 0, listed.stderr);
      assert.equal(listed.stdout.trim().split('\n').length, 2);
      const handle = database.open();
      const workspaces = await handle.db.selectFrom('workspaces').select('id').execute();
      await handle.close();
      assert.equal(workspaces.length, 1);
    } finally {
      await database.drop();
    }
  });

  test('a first serve whose port is taken fails clearly and creates nothing; the next one creates the workspace and prints its key', async () => {
    const database = await freshDatabase();
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const busy = (taken.address() as net.AddressInfo).port;
      const env = { ...cliEnv(database), HOST: '127.0.0.1', PORT: String(busy) };
      const failed = await cli(env, 'serve');
      assert.equal(failed.code, 1, failed.stdout);
      assert.match(
        failed.stderr,
        new RegExp(`cannot listen on 127\\.0\\.0\\.1:${busy}: the address is in use`),
      );
      assert.doesNotMatch(failed.stderr, /\n\s+at /, 'a message, not a stack trace');
      assert.doesNotMatch(failed.stdout, /pt_test_/);
      const handle = database.open();
      try {
        assert.deepEqual(await handle.db.selectFrom('workspaces').select('id').execute(), []);
        assert.deepEqual(await handle.db.selectFrom('api_keys').select('id').execute(), []);
      } finally {
        await handle.close();
      }

      const port = await freePort();
      const next = await startCommand(['serve'], { ...env, PORT: String(port) }, 'listening on');
      const key = KEY_FORM.exec(next.stdout.text)?.[0];
      assert.ok(key, next.stdout.text);
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/customers`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(response.status, 200);
      assert.equal(await next.stop(), 0, next.stderr.text);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
      await database.drop();
    }
  });

  test('serve runs background jobs on its worker thread: a webhook arrives, and /metrics counts it', async () => {
    const database = await freshDatabase();
    const receiver = await startReceiver();
    try {
      const port = await freePort();
      const env = {
        ...cliEnv(database),
        HOST: '127.0.0.1',
        PORT: String(port),
        WEBHOOK_ALLOW_PRIVATE: 'true',
      };
      const server = await startCommand(['serve'], env, 'listening on');
      try {
        assert.match(server.stdout.text, /background jobs on a worker thread/);
        const key = KEY_FORM.exec(server.stdout.text)?.[0];
        const call = (path: string, body: unknown) =>
          fetch(`http://127.0.0.1:${port}/api/v1${path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        assert.equal((await call('/webhooks', { url: receiver.url })).status, 201);
        assert.equal(
          (await call('/customers', { name: 'Thread Test', phone: '+2348031234567' })).status,
          201,
        );
        const deadline = Date.now() + 30_000;
        while (receiver.requests.length === 0 && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 50));
        assert.equal(JSON.parse(receiver.requests[0]?.body ?? '{}').type, 'customer.created');
        await new Promise((r) => setTimeout(r, 1_200)); // the thread forwards its counts every second
        const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        assert.match(metrics, /paytrack_webhook_delivery_attempts_total\{status="succeeded"\} 1/);
        assert.equal(await server.stop(), 0, server.stderr.text);
      } finally {
        // A failed check must not leave the server (and its worker thread) running in this process.
        await server.stop();
      }
    } finally {
      await receiver.close();
      await database.drop();
    }
  });

  test('serve finishes a test clock advance that answered 202 on its own worker, in real time', async () => {
    const database = await freshDatabase();
    try {
      const port = await freePort();
      const env = {
        ...cliEnv(database),
        HOST: '127.0.0.1',
        PORT: String(port),
        TEST_CLOCK_ADVANCE_BUDGET: '5',
      };
      const server = await startCommand(['serve'], env, 'listening on');
      try {
        const key = KEY_FORM.exec(server.stdout.text)?.[0];
        const call = async (method: string, path: string, body?: unknown) => {
          const res = await fetch(`http://127.0.0.1:${port}/api/v1${path}`, {
            method,
            headers: {
              authorization: `Bearer ${key}`,
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          return { status: res.status, body: (await res.json()) as any };
        };
        const customer = await call('POST', '/customers', { name: 'Clock Test', phone: '+2348031230000' });
        assert.equal(customer.status, 201, JSON.stringify(customer.body));
        const start = new Date(Date.now() + 86_400_000).toISOString();
        const schedules: string[] = [];
        for (let i = 0; i < 5; i++) {
          const plan = await call('POST', '/tracks', {
            customerId: customer.body.data.id,
            title: 'Daily plan',
            amount: 1_000_000,
          });
          const schedule = await call('POST', '/collection-schedules', {
            target_type: 'payment_plan',
            target_id: plan.body.data.id,
            frequency: 'daily',
            fixed_amount: 1_000,
            start_date: start,
          });
          assert.equal(schedule.status, 201, JSON.stringify(schedule.body));
          schedules.push(schedule.body.data.id);
        }

        const moved = await call('POST', '/account/test-clock/advance', { days: 20 });
        assert.equal(moved.status, 202, JSON.stringify(moved.body));
        assert.equal(moved.body.data.status, 'advancing');
        let clock = moved.body.data;
        // A bound on waiting, not a measure of speed: on a machine busy with other work the worker takes longer.
        const deadline = Date.now() + 120_000;
        while (clock.status !== 'ready' && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 100));
          clock = (await call('GET', '/account/test-clock')).body.data;
        }
        assert.equal(clock.status, 'ready', 'the worker finished the advance');
        const today = String(clock.now).slice(0, 10);
        for (const id of schedules) {
          const listed = await call('GET', `/collection-schedules/${id}/obligations?limit=100`);
          const past = listed.body.data.items.filter((o: { due_date: string }) => o.due_date < today);
          assert.ok(past.length >= 19, JSON.stringify(listed.body));
          assert.deepEqual(new Set(past.map((o: { status: string }) => o.status)), new Set(['overdue']));
        }
        assert.equal(await server.stop(), 0, server.stderr.text);
      } finally {
        await server.stop();
      }
    } finally {
      await database.drop();
    }
  });

  test('worker runs until stopped and exits with status 0, on a database migrate created', async () => {
    const database = await freshDatabase();
    try {
      const refused = await cli(cliEnv(database), 'worker');
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /no paytrack database/);
      const migrated = await cli(cliEnv(database), 'migrate');
      assert.match(migrated.stdout, /Applied migration 0001_initial/);
      const worker = await startCommand(['worker'], cliEnv(database), 'running background jobs');
      assert.equal(await worker.stop(), 0, worker.stderr.text);
    } finally {
      await database.drop();
    }
  });
});
