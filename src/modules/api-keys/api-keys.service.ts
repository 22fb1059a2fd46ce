import { hash, randomInt } from 'node:crypto';
import { tenantClock } from '../../clock/tenant-clocks.js';
import type { Db, DbOrTrx } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Mode, Tenant } from '../../lib/tenant.js';
import type { KeyWithWorkspace } from './api-keys.repository.js';
import * as repo from './api-keys.repository.js';
import type { ApiKeysTable } from './api-keys.table.js';
import type { KeyCache } from './key-cache.js';
import { type Grant, parseGrant, type Scope } from './scopes.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_FORM = /^pt_(test|live)_[0-9A-Za-z]{32}$/;

/** The request's tenant, with its clock, and what its key may do. */
/**
 * Who acts: an API key, a person signed in to the console, or a customer on their own page through its link (the
 * last two call the API inside the server).
 */
export interface Actor {
  type: 'key' | 'user' | 'payer';
  id: string;
}

export interface AuthContext extends Tenant {
  /** The key's id; for a person, their user id (rate limits count per actor). */
  keyId: string;
  actor: Actor;
  grant: Grant;
  /** A person's role may refuse what the grant allows: the reason, or null when the request may go on. */
  refuses?: (request: { method: string; route: string; body: unknown }) => string | null;
  workspace: { defaultCurrency: string; timezone: string; subscriptionPlan: string };
}

export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function generateKey(mode: Mode): string {
  let body = '';
  for (let i = 0; i < 32; i++) body += BASE62[randomInt(62)];
  return `pt_${mode}_${body}`;
}

export interface CreatedKey {
  id: string;
  key: string;
  mode: Mode;
  prefix: string;
  scopes: 'all' | Scope[];
  createdAt: string;
}

export async function createKey(
  db: DbOrTrx,
  clock: Clock,
  input: { workspaceId: string; mode: Mode; scopes: 'all' | Scope[]; name?: string },
): Promise<CreatedKey> {
  const key = generateKey(input.mode);
  const at = clock.now();
  const row: ApiKeysTable = {
    id: newId('apiKey', at),
    workspace_id: input.workspaceId,
    mode: input.mode,
    name: input.name ?? null,
    prefix: key.slice(0, 12),
    key_hash: hashKey(key),
    scopes: input.scopes === 'all' ? '*' : input.scopes.join(','),
    created_at: at.toISOString(),
    revoked_at: null,
  };
  await repo.insertKey(db, row);
  return {
    id: row.id,
    key,
    mode: row.mode,
    prefix: row.prefix,
    scopes: input.scopes,
    createdAt: row.created_at,
  };
}

/** What a live key grants, worked out once per read of its row: every request with the key gets a copy. */
export interface KeyGrant {
  workspace_id: string;
  keyId: string;
  mode: Mode;
  clock: Clock;
  grant: Grant;
  workspace: AuthContext['workspace'];
}

function keyGrantOf(base: Clock, row: KeyWithWorkspace): KeyGrant {
  return {
    workspace_id: row.workspace_id,
    keyId: row.id,
    mode: row.mode,
    clock: tenantClock(base, row.mode, row.offset_ms === null ? 0 : Number(row.offset_ms)),
    grant: parseGrant(row.scopes),
    workspace: {
      defaultCurrency: row.default_currency,
      timezone: row.timezone,
      subscriptionPlan: row.subscription_plan,
    },
  };
}

/**
 * Resolves a presented key; `null` for anything that is not a live, known key. The key is found by its hash (in
 * the cache or by the database's index), so a found key's hash is the presented one's: there is nothing left to
 * compare.
 */
export async function authenticate(
  ctx: { db: Db; clock: Clock; keys: KeyCache<KeyGrant> },
  presented: string,
): Promise<AuthContext | null> {
  const match = KEY_FORM.exec(presented);
  if (!match) return null;
  const hash = hashKey(presented);
  const key = await ctx.keys.read(hash, async () => {
    const found = await repo.findKeyByHash(ctx.db, hash);
    return found && found.revoked_at === null ? keyGrantOf(ctx.clock, found) : undefined;
  });
  if (!key || key.mode !== match[1]) return null;
  // Each request its own object: a request's commit hooks are kept on its AuthContext.
  return {
    keyId: key.keyId,
    actor: { type: 'key', id: key.keyId },
    workspaceId: key.workspace_id,
    mode: key.mode,
    clock: key.clock,
    grant: key.grant,
    workspace: key.workspace,
  };
}

export function keyToView(row: ApiKeysTable) {
  return {
    id: row.id,
    mode: row.mode,
    prefix: row.prefix,
    name: row.name,
    scopes: row.scopes === '*' ? ('all' as const) : row.scopes.split(','),
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

export const listKeys = (db: Db, workspaceId: string) => repo.listKeys(db, workspaceId);
export const countActiveKeys = repo.countActiveKeys;
export const findKey = (db: Db, keyId: string) => repo.findKey(db, keyId);
/** Revokes a key; this node refuses it from the next request on, every other node within `KEY_FRESH_MS`. */
export async function revokeKey(ctx: { db: Db; clock: Clock; keys: KeyCache<KeyGrant> }, keyId: string) {
  const revoked = await repo.revokeKey(ctx.db, keyId, ctx.clock.now().toISOString());
  if (revoked) ctx.keys.forgetWorkspace(revoked.workspace_id);
  return revoked;
}
