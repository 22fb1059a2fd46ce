import assert from 'node:assert/strict';
import type { Mode } from '../../src/lib/tenant.js';
import { createKey } from '../../src/modules/api-keys/api-keys.service.js';
import type { Scope } from '../../src/modules/api-keys/scopes.js';
import { createWorkspace } from '../../src/modules/workspaces/workspaces.service.js';
import { type Client, client } from './api.js';
import type { TestApp } from './app.js';

export interface TestWorkspace {
  workspaceId: string;
  testKey: string;
  liveKey: string;
  /** Client with the all-scopes test key. */
  api: Client;
  /** Client with the all-scopes live key. */
  live: Client;
}

/** A new workspace with an all-scopes test key and live key: tests never share rows. */
export async function newWorkspace(
  t: TestApp,
  options: { currency?: string; timezone?: string; country?: string } = {},
): Promise<TestWorkspace> {
  const ws = await createWorkspace(t.ctx.db, t.clock, {
    name: 'Test workspace',
    currency: options.currency ?? 'NGN',
    ...(options.timezone ? { timezone: options.timezone } : {}),
    ...(options.country ? { country: options.country } : {}),
  });
  const test = await createKey(t.ctx.db, t.clock, { workspaceId: ws.id, mode: 'test', scopes: 'all' });
  const live = await createKey(t.ctx.db, t.clock, { workspaceId: ws.id, mode: 'live', scopes: 'all' });
  return {
    workspaceId: ws.id,
    testKey: test.key,
    liveKey: live.key,
    api: client(t, test.key),
    live: client(t, live.key),
  };
}

export async function newKey(
  t: TestApp,
  workspaceId: string,
  options: { mode?: Mode; scopes?: 'all' | Scope[] } = {},
): Promise<{ id: string; key: string; api: Client }> {
  const created = await createKey(t.ctx.db, t.clock, {
    workspaceId,
    mode: options.mode ?? 'test',
    scopes: options.scopes ?? 'all',
  });
  return { id: created.id, key: created.key, api: client(t, created.key) };
}

let phoneCounter = 0;

export async function newCustomer(api: Client, overrides: Record<string, unknown> = {}) {
  phoneCounter += 1;
  const res = await api.post('/customers', {
    name: 'Ada Obi',
    phone: `+23480${String(31000000 + phoneCounter).padStart(8, '0')}`,
    ...overrides,
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

export async function newTrack(api: Client, overrides: Record<string, unknown> = {}) {
  const customerId = overrides.customerId ?? (await newCustomer(api)).id;
  const res = await api.post('/tracks', {
    customerId,
    title: 'Fridge, hire purchase',
    amount: 100_000,
    ...overrides,
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

export async function newPayment(api: Client, trackId: string, overrides: Record<string, unknown> = {}) {
  const res = await api.post('/payments', { trackId, amount: 1_000, method: 'cash', ...overrides });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}
