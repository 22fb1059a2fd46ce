import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import {
  isMessageProvider,
  messageSettingProblem,
  messageSettingView,
  setMessageProvider,
} from '../modules/messages/settings.service.js';
import { findWorkspace } from '../modules/workspaces/workspaces.service.js';
import type { Command } from './command.js';
import { withDatabase } from './database.js';
import { CommandError, printJson, println, requireOption, UsageError } from './io.js';
import { parseMode } from './key-create.js';
import { readSecret, requireSecretKey } from './secret-input.js';

const SYNOPSIS =
  'messages set --workspace ID --provider twilio|africastalking|http --mode test|live --credentials-file F [--sms-from S] [--whatsapp-from W] [--json]';

export const messagesSetCommand: Command = {
  name: 'messages set',
  synopsis: SYNOPSIS,
  summary: "Set a workspace's SMS and WhatsApp provider and its credentials for a mode",
  help: `Usage: paytrack ${SYNOPSIS}

  --workspace ID          the workspace
  --provider P            twilio (SMS and WhatsApp), africastalking (SMS), or http (the HTTP
                          message provider of MESSAGE_PROVIDER_URL's format, for others)
  --mode M                test or live: the provider carries that mode's reminders
  --credentials-file F    the provider's credentials as JSON, from file F (- reads stdin):
                          twilio {"accountSid":"AC…","authToken":"…"},
                          africastalking {"username":"…","apiKey":"…"},
                          http {"url":"https://…","apiKey":"…"}.
                          Stored encrypted under PAYTRACK_SECRET_KEY, never shown again
  --sms-from S            the SMS sender: an E.164 number, a short code or an alphanumeric
                          sender ID (Twilio: a Messaging Service SID too)
  --whatsapp-from W       the WhatsApp sender number, E.164 (Twilio only)
  --json                  print the setting as JSON

One provider per workspace and mode: setting another replaces it. Register the callback URL
printed with the provider for delivery receipts and incoming messages.`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        workspace: { type: 'string' },
        provider: { type: 'string' },
        mode: { type: 'string' },
        'credentials-file': { type: 'string' },
        'sms-from': { type: 'string' },
        'whatsapp-from': { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    const workspaceId = requireOption(values.workspace, 'workspace');
    const provider = requireOption(values.provider, 'provider');
    if (!isMessageProvider(provider))
      throw new UsageError('--provider must be twilio, africastalking or http');
    const mode = parseMode(requireOption(values.mode, 'mode'));
    const file = requireOption(values['credentials-file'], 'credentials-file');
    const input = {
      workspaceId,
      mode,
      provider,
      credentials: await readSecret(file, 'credentials-file', io.stdin),
      ...(values['sms-from'] === undefined ? {} : { smsFrom: values['sms-from'] }),
      ...(values['whatsapp-from'] === undefined ? {} : { whatsappFrom: values['whatsapp-from'] }),
    };
    const problem = messageSettingProblem(input);
    if (problem) throw new UsageError(problem);
    const config = loadConfig(io.env);
    requireSecretKey(config, 'credentials', 'them');
    const { setting, created } = await withDatabase(
      config,
      async ({ ctx }) => {
        if (!(await findWorkspace(ctx.db, workspaceId)))
          throw new CommandError(`no workspace '${workspaceId}'`);
        return setMessageProvider(ctx.db, ctx.clock, ctx.secrets, input);
      },
      { create: false, checkSecrets: true },
    );
    const view = messageSettingView(setting, config.publicUrl);
    if (values.json) {
      printJson(io.stdout, view);
      return 0;
    }
    println(
      io.stdout,
      `${created ? 'Set' : 'Updated'} the ${mode} message provider of workspace ${workspaceId}: ${provider} (${view.credentials}).`,
    );
    println(
      io.stdout,
      `Register this callback URL with ${provider} for delivery reports and incoming messages:`,
    );
    println(io.stdout, `    ${view.callbackUrl}`);
    return 0;
  },
};
