import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { inTransaction } from '../db/unit-of-work.js';
import { workspaceToView } from '../modules/workspaces/workspaces.service.js';
import {
  checkSettings,
  type SettingName,
  type SettingProblems,
  updateSettings,
  type WorkspaceSettings,
} from '../modules/workspaces/workspaces.settings.js';
import type { Command } from './command.js';
import { withDatabase } from './database.js';
import { CommandError, printJson, println, UsageError } from './io.js';

/** Each option and the setting it changes; an empty value clears those that may be empty. */
const OPTIONS: readonly { option: string; setting: SettingName; clearable: boolean }[] = [
  { option: 'name', setting: 'name', clearable: false },
  { option: 'currency', setting: 'currency', clearable: false },
  { option: 'timezone', setting: 'timeZone', clearable: false },
  { option: 'country', setting: 'country', clearable: false },
  { option: 'support-email', setting: 'supportEmail', clearable: true },
  { option: 'support-phone', setting: 'supportPhone', clearable: true },
  { option: 'brand-color', setting: 'brandColor', clearable: true },
];

const SYNOPSIS =
  'workspace update ID [--name N] [--currency C] [--timezone Z] [--country CC] [--support-email E] ' +
  '[--support-phone P] [--brand-color #rrggbb] [--json]';

function usageOf(problems: SettingProblems): UsageError {
  const lines = OPTIONS.filter(({ setting }) => problems[setting] !== undefined).map(
    ({ option, setting }) => `--${option} ${problems[setting]}`,
  );
  return new UsageError(lines.join('\n'));
}

export const workspaceUpdateCommand: Command = {
  name: 'workspace update',
  synopsis: SYNOPSIS,
  summary: "Change a workspace's settings (as PATCH /api/v1/account does)",
  help: `Usage: paytrack ${SYNOPSIS}

Changes the settings given, for test and live keys alike; nothing changes unless all are good.

  --name N            the business name payers see (1 to 200 characters)
  --currency C        default currency of plans made from now on, ISO 4217 (such as NGN)
  --timezone Z        IANA time zone (such as Africa/Lagos) of what is made from now on:
                      existing due dates stay, and existing schedules keep their zone
  --country CC        ISO 3166-1 alpha-2 country (such as NG) phone numbers written
                      without a country code are read in
  --support-email E   how payers reach the business by e-mail ('' clears it)
  --support-phone P   how payers reach the business by phone, read in the workspace's
                      country (the new one if --country is given), kept in E.164 ('' clears it)
  --brand-color C     colour of payer pages, #rrggbb ('' clears it)
  --json              print the workspace as JSON

Exit status: 0 done, 1 no such workspace, 2 bad usage (the option is named).`,

  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: {
        ...Object.fromEntries(OPTIONS.map(({ option }) => [option, { type: 'string' as const }])),
        json: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: true,
    });
    const [workspaceId, ...extra] = positionals;
    if (workspaceId === undefined || extra.length > 0) throw new UsageError('give exactly one workspace ID');

    const settings: WorkspaceSettings = {};
    for (const { option, setting, clearable } of OPTIONS) {
      const value = (values as Record<string, string | boolean | undefined>)[option];
      if (typeof value !== 'string') continue;
      Object.assign(settings, { [setting]: clearable && value === '' ? null : value });
    }
    if (Object.keys(settings).length === 0) {
      throw new UsageError(
        `give at least one setting to change: ${OPTIONS.map(({ option }) => `--${option}`).join(', ')}`,
      );
    }
    // Everything but the phone can be checked before opening the database; the phone needs its country.
    const { supportPhone: _phone, ...offline } = settings;
    const early = checkSettings(offline, null);
    if ('problems' in early) throw usageOf(early.problems);

    const config = loadConfig(io.env);
    const result = await withDatabase(config, ({ ctx }) =>
      inTransaction(ctx, null, (trx) => updateSettings(trx, ctx.dialect, ctx.clock, workspaceId, settings)),
    );
    if ('missing' in result) throw new CommandError(`no workspace '${workspaceId}'`);
    if ('problems' in result) throw usageOf(result.problems);

    const workspace = workspaceToView(result.workspace);
    if (values.json) {
      printJson(io.stdout, workspace);
    } else {
      const settingsText = [workspace.defaultCurrency, workspace.timezone, workspace.country]
        .filter(Boolean)
        .join(', ');
      println(io.stdout, `Updated workspace ${workspace.id} '${workspace.name}' (${settingsText}).`);
    }
    return 0;
  },
};
