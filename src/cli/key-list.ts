import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { keyToView, listKeys } from '../modules/api-keys/api-keys.service.js';
import { findWorkspace } from '../modules/workspaces/workspaces.service.js';
import type { Command } from './command.js';
import { withDatabase } from './database.js';
import { CommandError, formatTable, printJson, println, requireOption } from './io.js';

export const keyListCommand: Command = {
  name: 'key list',
  synopsis: 'key list --workspace ID [--json]',
  summary: "List a workspace's keys (never the key itself)",
  help: `Usage: paytrack key list --workspace ID [--json]

Lists the workspace's keys, revoked ones included, oldest first. Shows each key's
visible prefix, never the key itself (only its hash is stored).

  --workspace ID   the workspace
  --json           print the keys as a JSON array`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: { workspace: { type: 'string' }, json: { type: 'boolean', default: false } },
      strict: true,
      allowPositionals: false,
    });
    const workspaceId = requireOption(values.workspace, 'workspace');
    const config = loadConfig(io.env);
    const keys = await withDatabase(config, async ({ ctx }) => {
      if (!(await findWorkspace(ctx.db, workspaceId)))
        throw new CommandError(`no workspace '${workspaceId}'`);
      return (await listKeys(ctx.db, workspaceId)).map(keyToView);
    });

    if (values.json) {
      printJson(io.stdout, keys);
    } else if (keys.length === 0) {
      println(io.stdout, `Workspace ${workspaceId} has no keys yet.`);
    } else {
      const rows = keys.map((key) => [
        key.id,
        key.mode,
        `${key.prefix}…`,
        key.name ?? '',
        typeof key.scopes === 'string' ? key.scopes : key.scopes.join(','),
        key.createdAt,
        key.revokedAt ?? '',
      ]);
      println(io.stdout, formatTable(['ID', 'MODE', 'PREFIX', 'NAME', 'SCOPES', 'CREATED', 'REVOKED'], rows));
    }
    return 0;
  },
};
