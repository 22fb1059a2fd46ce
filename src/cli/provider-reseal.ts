import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { resealMessageCredentials } from '../modules/messages/settings.service.js';
import { resealSecrets } from '../modules/providers/providers.service.js';
import type { Command } from './command.js';
import { withDatabase } from './database.js';
import { printJson, println, UsageError } from './io.js';

export const providerResealCommand: Command = {
  name: 'provider reseal',
  synopsis: 'provider reseal [--json]',
  summary:
    'Seal every stored provider key and message credential again under PAYTRACK_SECRET_KEY (a key rotation)',
  help: `Usage: paytrack provider reseal [--json]

Rotates the key provider keys are encrypted under. Run it with the new key as
PAYTRACK_SECRET_KEY and the old one as PAYTRACK_SECRET_KEY_PREVIOUS: every stored key is
opened with the old one and sealed again with the new one. Then restart every paytrack
process with the new PAYTRACK_SECRET_KEY alone. Running it again changes nothing.

  --json   print {"resealed": N}`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: { json: { type: 'boolean', default: false } },
      strict: true,
      allowPositionals: false,
    });
    const config = loadConfig(io.env);
    if (config.secretKeys.length === 0) {
      throw new UsageError(
        'PAYTRACK_SECRET_KEY must be set: the new key, with the old one as PAYTRACK_SECRET_KEY_PREVIOUS',
      );
    }
    const resealed = await withDatabase(
      config,
      async ({ ctx }) =>
        (await resealSecrets(ctx.db, ctx.secrets, ctx.clock)) +
        (await resealMessageCredentials(ctx.db, ctx.secrets, ctx.clock)),
    );
    if (values.json) printJson(io.stdout, { resealed });
    else
      println(io.stdout, `Sealed ${resealed} provider setting(s) again under the new PAYTRACK_SECRET_KEY.`);
    return 0;
  },
};
