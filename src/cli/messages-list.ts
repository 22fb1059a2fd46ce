import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { listMessageSettings, messageSettingView } from '../modules/messages/settings.service.js';
import { findWorkspace } from '../modules/workspaces/workspaces.service.js';
import type { Command } from './command.js';
import { withDatabase } from './database.js';
import { CommandError, formatTable, printJson, println, requireOption } from './io.js';

export const messagesListCommand: Command = {
  name: 'messages list',
  synopsis: 'messages list --workspace ID [--json]',
  summary: "List a workspace's SMS and WhatsApp providers, with their callback URLs",
  help: `Usage: paytrack messages list --workspace ID [--json]

Lists the workspace's message provider of each mode: the provider, its account and the last
four characters of its secret, the senders, and the callback URL. Secrets are never shown.

  --workspace ID   the workspace
  --json           print the settings as a JSON array`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: { workspace: { type: 'string' }, json: { type: 'boolean', default: false } },
      strict: true,
      allowPositionals: false,
    });
    const workspaceId = requireOption(values.workspace, 'workspace');
    const config = loadConfig(io.env);
    const settings = await withDatabase(config, async ({ ctx }) => {
      if (!(await findWorkspace(ctx.db, workspaceId)))
        throw new CommandError(`no workspace '${workspaceId}'`);
      return listMessageSettings(ctx.db, workspaceId);
    });
    const views = settings.map((setting) => messageSettingView(setting, config.publicUrl));
    if (values.json) printJson(io.stdout, views);
    else if (views.length === 0)
      println(
        io.stdout,
        'No message providers yet: reminders by SMS and WhatsApp are simulated in test mode and need one in live mode.',
      );
    else {
      println(
        io.stdout,
        formatTable(
          ['ID', 'MODE', 'PROVIDER', 'CREDENTIALS', 'SMS FROM', 'WHATSAPP FROM', 'CALLBACK URL'],
          views.map((v) => [
            v.id,
            v.mode,
            v.provider,
            v.credentials,
            v.smsFrom ?? '-',
            v.whatsappFrom ?? '-',
            v.callbackUrl,
          ]),
        ),
      );
    }
    return 0;
  },
};
