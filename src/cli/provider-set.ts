import { parseArgs } from 'node:util';
import { loadTenant } from '../clock/tenant-clocks.js';
import { loadConfig } from '../config.js';
import { activateAwaitingApproval } from '../modules/mandates/mandates.service.js';
import { PROVIDER_NAME, setProvider } from '../modules/providers/providers.service.js';
import { findWorkspace } from '../modules/workspaces/workspaces.service.js';
import type { Command } from './command.js';
import { withDatabase } from './database.js';
import { CommandError, printJson, println, requireOption, UsageError } from './io.js';
import { parseMode } from './key-create.js';

export const providerSetCommand: Command = {
  name: 'provider set',
  synopsis: 'provider set --workspace ID --provider NAME --mode test|live [--approved] [--json]',
  summary:
    "Create or update a workspace's payment provider settings; prints a new setting's notification secret once",
  help: `Usage: paytrack provider set --workspace ID --provider NAME --mode test|live [--approved] [--json]

  --workspace ID    the workspace
  --provider NAME   the provider, by the name mandates use (for example gatewayA)
  --mode M          test or live
  --approved        the provider has approved automatic debit for the workspace: live mandates
                    the payer consented to become active, and live collections may run
  --json            print {"id","provider","mode","approved","notification_url","notification_secret"}

The first time, the setting gets a notification secret: the provider signs what it sends to
notification_url with it (HMAC-SHA256 of the raw body, hex, header x-provider-signature). It is
shown only then. Setting --approved later activates the live mandates that wait for it.`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        workspace: { type: 'string' },
        provider: { type: 'string' },
        mode: { type: 'string' },
        approved: { type: 'boolean' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    const workspaceId = requireOption(values.workspace, 'workspace');
    const provider = requireOption(values.provider, 'provider');
    if (!PROVIDER_NAME.test(provider)) {
      throw new UsageError('--provider must be 1 to 40 letters, digits, dots, dashes or underscores');
    }
    const mode = parseMode(requireOption(values.mode, 'mode'));

    const config = loadConfig(io.env);
    const result = await withDatabase(config, async ({ ctx }) => {
      if (!(await findWorkspace(ctx.db, workspaceId)))
        throw new CommandError(`no workspace '${workspaceId}'`);
      const { setting, created } = await setProvider(ctx.db, ctx.clock, {
        workspaceId,
        mode,
        provider,
        ...(values.approved ? { approved: true } : {}),
      });
      const tenant = await loadTenant(ctx.db, ctx.clock, { workspaceId, mode });
      const activated = await activateAwaitingApproval(ctx, tenant, provider);
      return { setting, created, activated };
    });

    const { setting, created, activated } = result;
    const notificationUrl = `${config.publicUrl}/api/v1/provider-notifications/${setting.id}`;
    if (values.json) {
      printJson(io.stdout, {
        id: setting.id,
        provider,
        mode,
        approved: setting.approved === 1,
        notification_url: notificationUrl,
        notification_secret: created ? setting.notification_secret : null,
        mandates_activated: activated,
      });
      return 0;
    }
    println(
      io.stdout,
      `${created ? 'Created' : 'Updated'} ${mode} settings ${setting.id} for ${provider} in workspace ${workspaceId}: ${
        mode === 'test'
          ? 'test mode collects through the simulator, with no approval needed'
          : setting.approved === 1
            ? 'approved for automatic debit'
            : 'not approved for automatic debit yet (live mandates wait, consented, until --approved)'
      }.`,
    );
    println(io.stdout, `Notifications: POST ${notificationUrl}`);
    if (created) {
      println(io.stdout, 'Notification secret, shown only this once (the provider signs with it):');
      println(io.stdout);
      println(io.stdout, `    ${setting.notification_secret}`);
      println(io.stdout);
    }
    if (activated > 0) println(io.stdout, `Activated ${activated} mandate(s) that waited for this approval.`);
    return 0;
  },
};
