import type { DbOrTrx } from '../db/schema.js';
import type { Mode } from '../modules/api-keys/api-keys.table.js';
import type { IdempotencyKeysTable } from './idempotency.table.js';

interface KeyRef {
  workspaceId: string;
  mode: Mode;
  key: string;
}

function whereKey(ref: KeyRef) {
  return { workspace_id: ref.workspaceId, mode: ref.mode, idem_key: ref.key };
}

/** Claims the key; false when a row for it already exists. */
export async function claim(db: DbOrTrx, row: IdempotencyKeysTable): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.columns(['workspace_id', 'mode', 'idem_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export function find(db: DbOrTrx, ref: KeyRef) {
  const w = whereKey(ref);
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('workspace_id', '=', w.workspace_id)
    .where('mode', '=', w.mode)
    .where('idem_key', '=', w.idem_key)
    .executeTakeFirst();
}

export function complete(db: DbOrTrx, ref: KeyRef, status: number, body: string) {
  const w = whereKey(ref);
  return db
    .updateTable('idempotency_keys')
    .set({ status: 'completed', response_status: status, response_body: body })
    .where('workspace_id', '=', w.workspace_id)
    .where('mode', '=', w.mode)
    .where('idem_key', '=', w.idem_key)
    .execute();
}

export function release(db: DbOrTrx, ref: KeyRef) {
  const w = whereKey(ref);
  return db
    .deleteFrom('idempotency_keys')
    .where('workspace_id', '=', w.workspace_id)
    .where('mode', '=', w.mode)
    .where('idem_key', '=', w.idem_key)
    .execute();
}

export function deleteExpired(db: DbOrTrx, now: string) {
  return db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
}
