import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { isEmail } from '../lib/email.js';
import { addPerson, isRole, PeopleError } from '../modules/people/index.js';
import { findWorkspace } from '../modules/workspaces/workspaces.service.js';
import type { Command } from './command.js';
import { withDatabase } from './database.js';
import { CommandError, printJson, println, requireOption, UsageError } from './io.js';

export const userCreateCommand: Command = {
  name: 'user create',
  synopsis: 'user create --workspace ID --email E --role owner|admin|collector|viewer [--name N] [--json]',
  summary: 'Add a person to a workspace of the console; prints a one-time link to set their password',
  help: `Usage: paytrack user create --workspace ID --email E --role owner|admin|collector|viewer [--name N] [--json]

Adds a person to the workspace's console with a role (a person already known by that e-mail
gets the workspace too, or a new role in it) and prints a link, valid once for 24 hours, where
they set their password: PUBLIC_URL/console/set-password/<token>. Only its hash is kept.

  --workspace ID   the workspace
  --email E        the person's e-mail, which they sign in with
  --role R         owner, admin, collector or viewer
  --name N         how the console names them
  --json           print {"id","email","role","link"}`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        workspace: { type: 'string' },
        email: { type: 'string' },
        role: { type: 'string' },
        name: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    const workspaceId = requireOption(values.workspace, 'workspace');
    const email = requireOption(values.email, 'email');
    const role = requireOption(values.role, 'role');
    if (!isRole(role)) throw new UsageError('--role must be owner, admin, collector or viewer');
    if (!isEmail(email.trim().toLowerCase()))
      throw new UsageError('--email must be an e-mail address such as owner@example.com');
    const config = loadConfig(io.env);
    const { user, token } = await withDatabase(config, async ({ ctx }) => {
      if (!(await findWorkspace(ctx.db, workspaceId)))
        throw new CommandError(`no workspace '${workspaceId}'`);
      try {
        return await addPerson(ctx.db, ctx.clock, {
          workspaceId,
          email,
          role,
          ...(values.name ? { name: values.name } : {}),
        });
      } catch (error) {
        if (error instanceof PeopleError) throw new UsageError(error.message);
        throw error;
      }
    });
    const link = `${config.publicUrl}/console/set-password/${token}`;
    if (values.json) {
      printJson(io.stdout, { id: user.id, email: user.email, role, link });
      return 0;
    }
    println(
      io.stdout,
      `${user.email} is ${role} of workspace ${workspaceId}. Send them this link to set their password (it works once, for 24 hours):`,
    );
    println(io.stdout);
    println(io.stdout, `    ${link}`);
    println(io.stdout);
    return 0;
  },
};
