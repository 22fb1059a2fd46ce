import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from './api.js';
import { buildTestApp, type TestApp } from './app.js';
import { cliEnv, cliJson } from './cli.js';
import { answer, formTokenOf, openPage, pathOf } from './consent.js';

/** The key provider keys are sealed with in these tests (a real deployment makes its own). */
export const SECRET_KEY = randomBytes(32).toString('base64');

/** A test app whose Paystack and Stripe are the local fakes at these URLs. */
export function liveProviderApp(urls: { paystack?: string; stripe?: string }, now: string) {
  return buildTestApp({
    clock: new ManualClock(new Date(now)),
    env: {
      PAYTRACK_SECRET_KEY: SECRET_KEY,
      PROVIDER_TIMEOUT_MS: '400',
      ...(urls.paystack ? { PAYSTACK_API_URL: urls.paystack } : {}),
      ...(urls.stripe ? { STRIPE_API_URL: urls.stripe } : {}),
    },
  });
}

/** `paytrack provider set` with a key file, as a business does it; returns the setting as --json prints it. */
export async function setProviderKey(
  t: TestApp,
  workspaceId: string,
  options: {
    provider: 'paystack' | 'stripe';
    mode: 'test' | 'live';
    secretKey: string;
    webhookSecret?: string;
    rails?: string;
    approved?: boolean;
  },
): Promise<{ id: string; webhookUrl: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paytrack-key-'));
  try {
    const keyFile = path.join(dir, 'key');
    fs.writeFileSync(keyFile, options.secretKey, { mode: 0o600 });
    const args = ['--secret-key-file', keyFile];
    if (options.webhookSecret) {
      const whsecFile = path.join(dir, 'whsec');
      fs.writeFileSync(whsecFile, options.webhookSecret, { mode: 0o600 });
      args.push('--webhook-secret-file', whsecFile);
    }
    if (options.rails) args.push('--rails', options.rails);
    if (options.approved) args.push('--approved');
    return await cliJson(
      { ...cliEnv(t.database), PAYTRACK_SECRET_KEY: SECRET_KEY },
      'provider',
      'set',
      '--workspace',
      workspaceId,
      '--provider',
      options.provider,
      '--mode',
      options.mode,
      ...args,
      '--json',
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The link to the provider's hosted page on one of our pages ("Continue to …"). */
export function continueLinkOf(html: string): string {
  const match = /<a class="button approve" href="([^"]+)">Continue to /.exec(html);
  assert.ok(match, `the page links to the provider: ${html.slice(0, 400)}`);
  return (match[1] as string).replace(/&amp;/g, '&');
}

let payers = 0;

/** Each payer browses from an address of their own: our pages limit each address to 30 requests a minute. */
export const payerAddress = () => `198.51.${100 + Math.floor(payers / 250)}.${(payers++ % 250) + 1}`;

/** The payer approves on our consent page (from `address`); returns the provider's hosted page it links to. */
export async function consentToProvider(
  t: TestApp,
  consentUrl: string,
  address = payerAddress(),
): Promise<string> {
  const path = pathOf(consentUrl);
  const page = await openPage(t, path, address);
  assert.equal(page.statusCode, 200, page.body);
  const approved = await answer(
    t,
    path,
    { decision: 'approve', form_token: formTokenOf(page.body) },
    {},
    address,
  );
  assert.equal(approved.statusCode, 200, approved.body);
  return continueLinkOf(approved.body);
}

/**
 * The payer on a fake provider's hosted page: presses a button (`action`), follows the provider's redirect back,
 * and lands on our page; returns what our page answered.
 */
export async function onProviderPage(
  t: TestApp,
  hostedUrl: string,
  field: [string, string],
  address = payerAddress(),
) {
  const shown = await fetch(hostedUrl);
  assert.equal(shown.status, 200);
  const sent = await fetch(hostedUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams([field]).toString(),
    redirect: 'manual',
  });
  assert.equal(sent.status, 303, await sent.text());
  const back = new URL(sent.headers.get('location') as string);
  return t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}`, remoteAddress: address });
}

/** Delivers a provider's signed webhook to the setting's webhook URL. */
export function deliver(
  t: TestApp,
  settingId: string,
  webhook: { body: string; headers: Record<string, string> },
) {
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/provider-webhooks/${settingId}`,
    headers: { 'content-type': 'application/json', ...webhook.headers },
    payload: webhook.body,
  });
}

export async function getMandate(api: Client, id: string) {
  const res = await api.get(`/payment-mandates/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}
