import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { findKey, revokeKey } from '../modules/api-keys/api-keys.service.js';
import type { Command } from './command.js';
import { withDatabase } from './database.js';
import { CommandError, println, UsageError } from './io.js';

export const keyRevokeCommand: Command = {
  name: 'key revoke',
  synopsis: 'key revoke KEY_ID',
  summary: 'Revoke a key; requests with it are refused at once',
  help: `Usage: paytrack key revoke KEY_ID

Revokes the key with this id (key_..., as 'key list' shows it). Requests with the key
get 401 unauthorized from then on, also on a server that is already running.
Revoking a revoked key changes nothing.`,

  async run(args, io) {
    const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
    if (positionals.length !== 1) throw new UsageError('give exactly one KEY_ID');
    const keyId = positionals[0] as string;

    const config = loadConfig(io.env);
    const message = await withDatabase(config, async ({ ctx }) => {
      const revoked = await revokeKey(ctx, keyId);
      if (revoked) {
        return `Revoked key ${keyId} (${revoked.prefix}…) of workspace ${revoked.workspace_id} at ${revoked.revoked_at}.`;
      }
      const existing = await findKey(ctx.db, keyId);
      if (!existing) throw new CommandError(`no key '${keyId}'`);
      return `Key ${keyId} was already revoked at ${existing.revoked_at}.`;
    });
    println(io.stdout, message);
    return 0;
  },
};
