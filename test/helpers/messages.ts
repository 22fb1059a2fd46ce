import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from './api.js';
import type { TestApp } from './app.js';
import { cliEnv, cliJson } from './cli.js';
import { SECRET_KEY } from './live-providers.js';

/** `paytrack messages set` with a credentials file, as a business does it; the setting as --json prints it. */
export async function setMessageProvider(
  env: NodeJS.ProcessEnv,
  workspaceId: string,
  options: { provider: string; credentials: Record<string, string>; args?: string[] },
): Promise<{ id: string; callbackUrl: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paytrack-creds-'));
  try {
    const file = path.join(dir, 'credentials.json');
    fs.writeFileSync(file, JSON.stringify(options.credentials), { mode: 0o600 });
    return await cliJson(
      { ...env, PAYTRACK_SECRET_KEY: SECRET_KEY },
      'messages',
      'set',
      '--workspace',
      workspaceId,
      '--provider',
      options.provider,
      '--mode',
      'test',
      '--credentials-file',
      file,
      ...(options.args ?? []),
      '--json',
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The test app's command-line environment with its public URL. */
export const messagesEnv = (t: TestApp, publicUrl: string) => ({
  ...cliEnv(t.database),
  PUBLIC_URL: publicUrl,
});

/** A reminder queued and sent now, as the business does it; waits for the worker. */
export async function remind(t: TestApp, api: Client, body: Record<string, unknown>) {
  const queued = await api.post('/reminders', body);
  assert.equal(queued.status, 202, JSON.stringify(queued.body));
  const sent = await api.post('/reminders/send', { reminderIds: [queued.body.data.id] });
  assert.equal(sent.status, 202, JSON.stringify(sent.body));
  await t.worker.drain();
  return queued.body.data;
}

/** A reminder's log rows, newest first. */
export async function logsOf(api: Client, reminderId: string) {
  const res = await api.get(`/reminders/logs?reminderId=${reminderId}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.items as Record<string, any>[];
}
