import { createHmac, randomBytes } from 'node:crypto';
import type { TestApp } from './app.js';
import { cliEnv, cliJson } from './cli.js';

export interface ProviderSetting {
  id: string;
  notification_secret: string;
}

/** A workspace's settings for a provider in test mode, made as a business would: `paytrack provider set`. */
export function providerSetting(t: TestApp, workspaceId: string, provider: string): Promise<ProviderSetting> {
  return cliJson(
    cliEnv(t.database),
    'provider',
    'set',
    '--workspace',
    workspaceId,
    '--provider',
    provider,
    '--mode',
    'test',
    '--json',
  );
}

/** A provider's notification about `reference`, with a fresh id; 20,000 NGN unless overridden. */
export const notification = (reference: string, overrides: Record<string, unknown> = {}) => ({
  id: `ntf_${randomBytes(8).toString('hex')}`,
  type: 'charge.succeeded',
  reference,
  amount: 20_000,
  currency: 'NGN',
  occurred_at: '2028-01-25T00:00:05Z',
  ...overrides,
});

/** Sends a notification as the provider does: signed with the setting's secret, unless a signature is given. */
export function notify(
  t: TestApp,
  setting: ProviderSetting,
  body: Record<string, unknown>,
  signature?: string,
) {
  const raw = JSON.stringify(body);
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/provider-notifications/${setting.id}`,
    headers: {
      'content-type': 'application/json',
      'x-provider-signature':
        signature ?? createHmac('sha256', setting.notification_secret).update(raw).digest('hex'),
    },
    payload: raw,
  });
}
