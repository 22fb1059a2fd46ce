import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { listWorkspaces, workspaceToView } from '../modules/workspaces/workspaces.service.js';
import type { Command } from './command.js';
import { withDatabase } from './database.js';
import { formatTable, printJson, println } from './io.js';

export const workspaceListCommand: Command = {
  name: 'workspace list',
  synopsis: 'workspace list [--json]',
  summary: 'List the workspaces, oldest first',
  help: `Usage: paytrack workspace list [--json]

Lists every workspace of the database with its default currency, time zone and plan.

  --json   print the workspaces as a JSON array`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: { json: { type: 'boolean', default: false } },
      strict: true,
      allowPositionals: false,
    });
    const config = loadConfig(io.env);
    const workspaces = (await withDatabase(config, ({ ctx }) => listWorkspaces(ctx.db))).map(workspaceToView);
    if (values.json) {
      printJson(io.stdout, workspaces);
    } else if (workspaces.length === 0) {
      println(io.stdout, "No workspaces yet. Create one with 'paytrack workspace create --name N'.");
    } else {
      println(
        io.stdout,
        formatTable(
          ['ID', 'NAME', 'CURRENCY', 'TIMEZONE', 'PLAN', 'CREATED'],
          workspaces.map((w) => [
            w.id,
            w.name,
            w.defaultCurrency,
            w.timezone,
            w.subscriptionPlan,
            w.createdAt,
          ]),
        ),
      );
    }
    return 0;
  },
};
