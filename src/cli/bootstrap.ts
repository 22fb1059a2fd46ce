import type { FirstWorkspace } from '../config.js';
import type { AppContext } from '../context.js';
import { type CreatedKey, createKey } from '../modules/api-keys/api-keys.service.js';
import { addPersonIn } from '../modules/people/index.js';
import {
  createWorkspace,
  hasAnyWorkspace,
  type WorkspacesTable,
} from '../modules/workspaces/workspaces.service.js';

export interface Bootstrapped {
  workspace: WorkspacesTable;
  key: CreatedKey;
  /** The first owner of the console and the one-time token of the link that sets their password. */
  owner: { email: string; token: string };
}

/** The first owner's e-mail when neither --owner-email nor PAYTRACK_OWNER_EMAIL names one. */
export const DEFAULT_OWNER_EMAIL = 'owner@example.com';

const SERIALIZATION_FAILURE = '40001';
const ATTEMPTS = 3;

export const DEFAULT_WORKSPACE_NAME = 'Default workspace';

/**
 * On an empty database: a default workspace, one all-scopes test key and the console's first owner (with a link
 * to set their password), so a first `serve` is usable at once. The workspace takes the settings given (`serve` flags over the PAYTRACK_* variables), else
 * "Default workspace" in USD and UTC. Returns null when any workspace exists. Serializable, so nodes starting together on an empty
 * PostgreSQL create one workspace between them (the losers retry and find it).
 */
export async function bootstrapIfEmpty(
  ctx: AppContext,
  first: Readonly<FirstWorkspace> = ctx.config.firstWorkspace,
): Promise<Bootstrapped | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db
        .transaction()
        .setIsolationLevel('serializable')
        .execute(async (trx) => {
          if (await hasAnyWorkspace(trx)) return null;
          const workspace = await createWorkspace(trx, ctx.clock, {
            ...first,
            name: first.name ?? DEFAULT_WORKSPACE_NAME,
          });
          const key = await createKey(trx, ctx.clock, {
            workspaceId: workspace.id,
            mode: 'test',
            scopes: 'all',
          });
          const email = first.ownerEmail ?? DEFAULT_OWNER_EMAIL;
          const { token } = await addPersonIn(trx, ctx.clock, {
            workspaceId: workspace.id,
            email,
            role: 'owner',
          });
          return { workspace, key, owner: { email, token } };
        });
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (code !== SERIALIZATION_FAILURE || attempt >= ATTEMPTS) throw error;
    }
  }
}
