import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { cli, cliEnv } from '../helpers/cli.js';
import { newCustomer, newWorkspace } from '../helpers/factories.js';
import { SECRET_KEY } from '../helpers/live-providers.js';
import { type FakeMessageProvider, startMessageProvider } from '../helpers/transports.js';

// A workspace's own HTTP message provider (`messages set --provider http`), for providers without an adapter.

let t: TestApp;
let provider: FakeMessageProvider;
before(async () => {
  provider = await startMessageProvider();
  t = await buildTestApp({ env: { PAYTRACK_SECRET_KEY: SECRET_KEY } });
});
after(async () => {
  await t.close();
  await provider.close();
});

test("an SMS goes to the workspace's HTTP message provider with its key; bad credentials name the option", async () => {
  const { api, workspaceId } = await newWorkspace(t);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paytrack-creds-'));
  const env = { ...cliEnv(t.database), PAYTRACK_SECRET_KEY: SECRET_KEY };
  const good = path.join(dir, 'good.json');
  fs.writeFileSync(good, JSON.stringify({ url: provider.url, apiKey: 'key-0123456789' }));
  const bad = path.join(dir, 'bad.json');
  fs.writeFileSync(bad, JSON.stringify({ url: 'ftp://nowhere', apiKey: 'key-0123456789' }));
  const refused = await cli(
    env,
    'messages',
    'set',
    '--workspace',
    workspaceId,
    '--provider',
    'http',
    '--mode',
    'test',
    '--credentials-file',
    bad,
  );
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--credentials-file: url is missing or not a http url/);
  const set = await cli(
    env,
    'messages',
    'set',
    '--workspace',
    workspaceId,
    '--provider',
    'http',
    '--mode',
    'test',
    '--credentials-file',
    good,
    '--sms-from',
    'MAMAPUT',
  );
  assert.equal(set.code, 0, set.stderr);
  assert.ok(!set.stdout.includes('key-0123456789'));
  fs.rmSync(dir, { recursive: true, force: true });

  const customer = await newCustomer(api);
  const queued = await api.post('/reminders', { customerId: customer.id, channel: 'sms', message: 'Hello' });
  await api.post('/reminders/send', { reminderIds: [queued.body.data.id] });
  await t.worker.drain();
  const [request] = provider.requests;
  assert.equal(request?.headers.authorization, 'Bearer key-0123456789');
  assert.deepEqual(request?.body, { channel: 'sms', from: 'MAMAPUT', to: customer.phone, text: 'Hello' });
  const [log] = (await api.get(`/reminders/logs?reminderId=${queued.body.data.id}`)).body.data.items;
  assert.equal(log.status, 'sent');
  assert.equal(log.provider, 'http');
});
