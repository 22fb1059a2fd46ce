import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import {
  createWorkspace,
  type WorkspaceInput,
  workspaceProblems,
  workspaceToView,
} from '../modules/workspaces/workspaces.service.js';
import type { Command } from './command.js';
import { withDatabase } from './database.js';
import { printJson, println, requireOption, UsageError } from './io.js';

export const workspaceCreateCommand: Command = {
  name: 'workspace create',
  synopsis: 'workspace create --name N [--currency C] [--timezone Z] [--country CC] [--json]',
  summary: 'Create a workspace',
  help: `Usage: paytrack workspace create --name N [--currency C] [--timezone Z] [--country CC] [--json]

  --name N        the workspace's name (1 to 200 characters)
  --currency C    default currency of its plans, ISO 4217 (default USD)
  --timezone Z    IANA time zone of its calendar dates (default UTC)
  --country CC    ISO 3166-1 alpha-2 country (such as NG) phone numbers written without
                  a country code are read in (default none: numbers need their country code)
  --json          print the workspace as JSON`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        name: { type: 'string' },
        currency: { type: 'string' },
        timezone: { type: 'string' },
        country: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    const input: WorkspaceInput = {
      name: requireOption(values.name, 'name'),
      ...(values.currency !== undefined ? { currency: values.currency } : {}),
      ...(values.timezone !== undefined ? { timezone: values.timezone } : {}),
      ...(values.country !== undefined ? { country: values.country } : {}),
    };
    const problems = Object.entries(workspaceProblems(input));
    if (problems.length > 0) {
      throw new UsageError(problems.map(([option, problem]) => `--${option} ${problem}`).join('\n'));
    }

    const config = loadConfig(io.env);
    const workspace = workspaceToView(
      await withDatabase(config, ({ ctx }) => createWorkspace(ctx.db, ctx.clock, input), { create: true }),
    );
    if (values.json) {
      printJson(io.stdout, workspace);
    } else {
      println(
        io.stdout,
        `Created workspace ${workspace.id} '${workspace.name}' (${[workspace.defaultCurrency, workspace.timezone, workspace.country].filter(Boolean).join(', ')}).`,
      );
      println(io.stdout, `Next: paytrack key create --workspace ${workspace.id} --mode test`);
    }
    return 0;
  },
};
