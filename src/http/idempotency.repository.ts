import type { DbOrTrx } from '../db/schema.js';
import { inTenant } from '../db/scoping.js';
import type { Tenant } from '../modules/tenant.js';
import type { IdempotencyKeysTable } from './idempotency.table.js';

/** An idempotency key belongs to one workspace and mode. */
type KeyRef = Tenant & { key: string };

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
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where(inTenant(ref))
    .where('idem_key', '=', ref.key)
    .executeTakeFirst();
}

export function complete(db: DbOrTrx, ref: KeyRef, status: number, body: string) {
  return db
    .updateTable('idempotency_keys')
    .set({ status: 'completed', response_status: status, response_body: body })
    .where(inTenant(ref))
    .where('idem_key', '=', ref.key)
    .execute();
}

export function release(db: DbOrTrx, ref: KeyRef) {
  return db.deleteFrom('idempotency_keys').where(inTenant(ref)).where('idem_key', '=', ref.key).execute();
}

export function deleteExpired(db: DbOrTrx, now: string) {
  return db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
}
