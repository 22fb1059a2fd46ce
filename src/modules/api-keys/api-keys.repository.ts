import type { DbOrTrx } from '../../db/schema.js';
import type { ApiKeysTable } from './api-keys.table.js';

export function insertKey(db: DbOrTrx, row: ApiKeysTable) {
  return db.insertInto('api_keys').values(row).execute();
}

/** The key with its workspace and the workspace's test clock, for authentication. */
export function findKeyByHash(db: DbOrTrx, keyHash: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .leftJoin('test_clocks', 'test_clocks.workspace_id', 'api_keys.workspace_id')
    .select([
      'api_keys.id',
      'api_keys.workspace_id',
      'api_keys.mode',
      'api_keys.key_hash',
      'api_keys.scopes',
      'api_keys.revoked_at',
      'workspaces.default_currency',
      'workspaces.timezone',
      'workspaces.subscription_plan',
      'test_clocks.offset_ms',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
}

export type KeyWithWorkspace = NonNullable<Awaited<ReturnType<typeof findKeyByHash>>>;

export function listKeys(db: DbOrTrx, workspaceId: string) {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('id')
    .execute();
}

export function revokeKey(db: DbOrTrx, keyId: string, at: string) {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export function findKey(db: DbOrTrx, keyId: string) {
  return db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
}

export async function countActiveKeys(db: DbOrTrx, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
