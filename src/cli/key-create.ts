import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import type { Mode } from '../lib/tenant.js';
import { countActiveKeys, createKey } from '../modules/api-keys/api-keys.service.js';
import { isScope, SCOPE_RESOURCES, type Scope } from '../modules/api-keys/scopes.js';
import { subscriptionPlanById } from '../modules/workspaces/subscription-plans.js';
import { lockWorkspace } from '../modules/workspaces/workspaces.service.js';
import type { Command } from './command.js';
import { withDatabase } from './database.js';
import { CommandError, printJson, println, requireOption, UsageError } from './io.js';

const MAX_NAME = 200;

export function parseMode(value: string): Mode {
  if (value === 'test' || value === 'live') return value;
  throw new UsageError(`--mode must be test or live, got '${value}'`);
}

/** `a:read,b:write` -> the listed scopes; no option means every scope. */
export function parseScopes(value: string | undefined): 'all' | Scope[] {
  if (value === undefined) return 'all';
  const listed = value
    .split(',')
    .map((scope) => scope.trim())
    .filter((scope) => scope !== '');
  if (listed.length === 0)
    throw new UsageError('--scopes needs at least one scope, e.g. tracks:read,payments:write');
  const unknown = listed.filter((scope) => !isScope(scope));
  if (unknown.length > 0) {
    throw new UsageError(
      `--scopes has unknown scope ${unknown.map((s) => `'${s}'`).join(', ')}; a scope is <resource>:read or <resource>:write with resource one of ${SCOPE_RESOURCES.join(', ')}`,
    );
  }
  return [...new Set(listed as Scope[])];
}

export const keyCreateCommand: Command = {
  name: 'key create',
  synopsis: 'key create --workspace ID --mode test|live [--scopes a:read,b:write] [--name N] [--json]',
  summary: 'Issue an API key; the key is printed once and only its hash is stored',
  help: `Usage: paytrack key create --workspace ID --mode test|live [--scopes a:read,b:write] [--name N] [--json]

  --workspace ID   the workspace the key acts on
  --mode M         test (test data, simulated providers) or live
  --scopes LIST    comma-separated scopes such as tracks:read,payments:write
                   (:write includes :read); all scopes when left out
  --name N         a label to recognise the key in 'key list'
  --json           print {"id","key"} as JSON

The key works at once, also on a server that is already running.`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        workspace: { type: 'string' },
        mode: { type: 'string' },
        scopes: { type: 'string' },
        name: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    const workspaceId = requireOption(values.workspace, 'workspace');
    const mode = parseMode(requireOption(values.mode, 'mode'));
    const scopes = parseScopes(values.scopes);
    const name = values.name?.trim();
    if (name !== undefined && (name === '' || name.length > MAX_NAME)) {
      throw new UsageError(`--name must be 1 to ${MAX_NAME} characters`);
    }

    const config = loadConfig(io.env);
    const created = await withDatabase(config, ({ ctx }) =>
      ctx.db.transaction().execute(async (trx) => {
        const workspace = await lockWorkspace(trx, ctx.dialect, workspaceId);
        if (!workspace) throw new CommandError(`no workspace '${workspaceId}'`);
        const limit = subscriptionPlanById(workspace.subscription_plan).limits.apiKeys;
        if ((await countActiveKeys(trx, workspaceId)) >= limit) {
          throw new CommandError(
            `the workspace has reached its plan's limit of ${limit} active API keys; revoke one first (paytrack key list, paytrack key revoke)`,
          );
        }
        return createKey(trx, ctx.clock, { workspaceId, mode, scopes, ...(name ? { name } : {}) });
      }),
    );

    if (values.json) {
      printJson(io.stdout, { id: created.id, key: created.key });
      return 0;
    }
    const scopeText = scopes === 'all' ? 'all scopes' : scopes.join(', ');
    println(io.stdout, `Created ${mode} key ${created.id} for workspace ${workspaceId} (${scopeText}).`);
    println(io.stdout, 'The key is shown only this once; only its hash is stored:');
    println(io.stdout);
    println(io.stdout, `    ${created.key}`);
    println(io.stdout);
    println(io.stdout, `Use it as: Authorization: Bearer ${created.key}`);
    return 0;
  },
};
