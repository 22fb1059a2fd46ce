import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import type { Command } from './command.js';
import { describeDatabase, withDatabase } from './database.js';
import { println } from './io.js';

export const migrateCommand: Command = {
  name: 'migrate',
  synopsis: 'migrate',
  summary: 'Apply pending database migrations and list them',
  help: `Usage: paytrack migrate

Brings the configured database up to date and prints each migration it applied.
'serve' and 'worker' do the same when they start; running it twice is harmless.`,

  async run(args, io) {
    parseArgs({ args, options: {}, strict: true, allowPositionals: false });
    const config = loadConfig(io.env);
    const applied = await withDatabase(config, async (opened) => opened.applied, { create: true });
    for (const name of applied) println(io.stdout, `Applied migration ${name}`);
    println(
      io.stdout,
      applied.length === 0
        ? `${describeDatabase(config)} is up to date; no migration to apply.`
        : `${describeDatabase(config)} is up to date.`,
    );
    return 0;
  },
};
