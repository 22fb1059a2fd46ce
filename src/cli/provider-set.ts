import { parseArgs } from 'node:util';
import { loadTenant } from '../clock/tenant-clocks.js';
import { loadConfig } from '../config.js';
import { activateAwaitingApproval } from '../modules/mandates/mandates.service.js';
import { RAILS, type Rail } from '../modules/providers/live-providers.js';
import {
  PROVIDER_NAME,
  type SettingView,
  setProvider,
  settingProblem,
  settingView,
} from '../modules/providers/providers.service.js';
import { findWorkspace } from '../modules/workspaces/workspaces.service.js';
import type { Command } from './command.js';
import { withDatabase } from './database.js';
import { CommandError, printJson, println, requireOption, UsageError } from './io.js';
import { parseMode } from './key-create.js';
import { readSecret, requireSecretKey } from './secret-input.js';

const SYNOPSIS =
  'provider set --workspace ID --provider NAME --mode test|live [--secret-key-file F] [--webhook-secret-file F] [--rails checkout,virtual_account,debit] [--approved] [--json]';

export const providerSetCommand: Command = {
  name: 'provider set',
  synopsis: SYNOPSIS,
  summary:
    "Create or update a workspace's payment provider settings and keys; prints a new setting's notification secret once",
  help: `Usage: paytrack ${SYNOPSIS}

  --workspace ID             the workspace
  --provider NAME            the provider, by the name mandates use: paystack and stripe have
                             live adapters; any other name (gatewayA) is simulated in test mode
  --mode M                   test or live
  --secret-key-file F        the provider's secret key for this mode, read from file F (- reads
                             stdin): sk_test_… in test mode (the provider's sandbox), sk_live_… in
                             live. Stored encrypted under PAYTRACK_SECRET_KEY, never shown again
  --webhook-secret-file F    Stripe's webhook signing secret (whsec_…) of the endpoint you register
                             at the webhook URL printed; Paystack signs with the secret key
  --rails LIST               which rails this provider serves in this mode, comma-separated:
                             checkout (gatewayA_checkout schedules), virtual_account
                             (gatewayB_virtual_account), debit (auto_debit mandates); a rail
                             moves here from the provider that served it
  --approved                 the provider has approved automatic debit for the workspace: live
                             mandates the payer consented to become active, and live collections run
  --json                     print the setting as JSON

The first time, the setting gets a notification secret for the generic notification format
(HMAC-SHA256 of the raw body, hex, header x-provider-signature), shown only then. Providers with
a live adapter send their own webhooks to the webhook URL printed. Setting --approved later
activates the live mandates that wait for it.`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        workspace: { type: 'string' },
        provider: { type: 'string' },
        mode: { type: 'string' },
        'secret-key-file': { type: 'string' },
        'webhook-secret-file': { type: 'string' },
        rails: { type: 'string' },
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
    const rails = values.rails === undefined ? undefined : parseRails(values.rails);
    if (values['secret-key-file'] === '-' && values['webhook-secret-file'] === '-') {
      throw new UsageError('--secret-key-file and --webhook-secret-file cannot both read stdin');
    }
    const secretKey =
      values['secret-key-file'] === undefined
        ? undefined
        : await readSecret(values['secret-key-file'], 'secret-key-file', io.stdin);
    const webhookSecret =
      values['webhook-secret-file'] === undefined
        ? undefined
        : await readSecret(values['webhook-secret-file'], 'webhook-secret-file', io.stdin);

    const input = {
      workspaceId,
      mode,
      provider,
      ...(values.approved ? { approved: true } : {}),
      ...(secretKey === undefined ? {} : { secretKey }),
      ...(webhookSecret === undefined ? {} : { webhookSecret }),
      ...(rails === undefined ? {} : { rails }),
    };
    const problem = settingProblem(input);
    if (problem) throw new UsageError(problem);
    const config = loadConfig(io.env);
    if (secretKey !== undefined || webhookSecret !== undefined)
      requireSecretKey(config, 'a provider key', 'keys');
    const result = await withDatabase(
      config,
      async ({ ctx }) => {
        if (!(await findWorkspace(ctx.db, workspaceId)))
          throw new CommandError(`no workspace '${workspaceId}'`);
        const set = await setProvider(ctx.db, ctx.clock, input, ctx.secrets);
        const tenant = await loadTenant(ctx.db, ctx.clock, { workspaceId, mode });
        const activated = await activateAwaitingApproval(ctx, tenant, provider);
        return { ...set, activated };
      },
      { create: false, checkSecrets: true },
    );

    const { setting, created, activated, railsMovedFrom } = result;
    const view = settingView(setting, config.publicUrl);
    if (values.json) {
      printJson(io.stdout, {
        ...view,
        notification_url: view.notificationUrl,
        notification_secret: created ? setting.notification_secret : null,
        mandates_activated: activated,
        rails_moved_from: railsMovedFrom,
      });
      return 0;
    }
    println(
      io.stdout,
      `${created ? 'Created' : 'Updated'} ${mode} settings ${setting.id} for ${provider} in workspace ${workspaceId}: ${describe(view)}.`,
    );
    if (view.rails.length > 0) println(io.stdout, `Rails served: ${view.rails.join(', ')}.`);
    for (const other of railsMovedFrom) println(io.stdout, `Moved from ${other}: the rails above.`);
    if (view.liveAdapter) {
      println(io.stdout, `Register this webhook URL with ${provider}: ${view.webhookUrl}`);
      if (provider === 'stripe' && !view.webhookSecretSet) {
        println(
          io.stdout,
          "Stripe's webhooks are refused until --webhook-secret-file gives the endpoint's signing secret (whsec_…).",
        );
      }
    } else {
      println(io.stdout, `Notifications: POST ${view.notificationUrl}`);
    }
    if (created && !view.liveAdapter) {
      println(io.stdout, 'Notification secret, shown only this once (the provider signs with it):');
      println(io.stdout);
      println(io.stdout, `    ${setting.notification_secret}`);
      println(io.stdout);
    }
    if (activated > 0) println(io.stdout, `Activated ${activated} mandate(s) that waited for this approval.`);
    return 0;
  },
};

function describe(view: SettingView): string {
  const key = view.keyLast4 === null ? '' : `key …${view.keyLast4}; `;
  if (view.mode === 'test') {
    return `${key}test mode collects through ${view.liveAdapter ? `${view.provider}'s sandbox` : 'the simulator'}, with no approval needed`;
  }
  return `${key}${
    view.approved
      ? 'approved for automatic debit'
      : 'not approved for automatic debit yet (live mandates wait, consented, until --approved)'
  }`;
}

function parseRails(text: string): Rail[] {
  const rails = text
    .split(',')
    .map((rail) => rail.trim())
    .filter((rail) => rail !== '');
  const unknown = rails.filter((rail) => !(RAILS as readonly string[]).includes(rail));
  if (unknown.length > 0) {
    throw new UsageError(
      `--rails: unknown rail ${unknown.map((rail) => `'${rail}'`).join(', ')} (rails: ${RAILS.join(', ')})`,
    );
  }
  return rails as Rail[];
}
