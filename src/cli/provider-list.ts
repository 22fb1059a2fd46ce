import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { listSettings, settingView } from '../modules/providers/providers.service.js';
import { findWorkspace } from '../modules/workspaces/workspaces.service.js';
import type { Command } from './command.js';
import { withDatabase } from './database.js';
import { CommandError, formatTable, printJson, println, requireOption } from './io.js';

export const providerListCommand: Command = {
  name: 'provider list',
  synopsis: 'provider list --workspace ID [--json]',
  summary:
    "List a workspace's payment provider settings, with their webhook URLs; keys show their last four characters",
  help: `Usage: paytrack provider list --workspace ID [--json]

Lists each provider setting of the workspace: provider, mode, the rails it serves, whether live
debit is approved, the last four characters of its key, and the URL its webhooks go to. Keys and
secrets are never shown.

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
      return listSettings(ctx.db, workspaceId);
    });
    const views = settings.map((setting) => settingView(setting, config.publicUrl));
    if (values.json) {
      printJson(io.stdout, views);
    } else if (views.length === 0) {
      println(
        io.stdout,
        `No provider settings yet. Add one with 'paytrack provider set --workspace ${workspaceId} …'.`,
      );
    } else {
      println(
        io.stdout,
        formatTable(
          ['ID', 'PROVIDER', 'MODE', 'RAILS', 'APPROVED', 'KEY', 'WEBHOOK URL'],
          views.map((view) => [
            view.id,
            view.provider,
            view.mode,
            view.rails.join(',') || '-',
            view.approved ? 'yes' : 'no',
            view.keyLast4 === null ? '-' : `…${view.keyLast4}`,
            view.liveAdapter ? view.webhookUrl : view.notificationUrl,
          ]),
        ),
      );
    }
    return 0;
  },
};
