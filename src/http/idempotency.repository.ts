import type { DbOrTrx } from '../db/schema.js';
import { inTenant } from '../db/scoping.js';
import type { TenantRef } from '../lib/tenant.js';
import type { IdempotencyKeysTable } from './idempotency.table.js';

/** An idempotency key belongs to one workspace and mode. */
export type KeyRef = TenantRef & { key: string };

export function find(db: DbOrTrx, ref: KeyRef) {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where(inTenant(ref))
    .where('idem_key', '=', ref.key)
    .executeTakeFirst();
}

/**
 * Keeps a completed response under its key, replacing an expired one; false when a live record of the key
 * exists (another request with the key committed first).
 */
export async function save(db: DbOrTrx, row: IdempotencyKeysTable): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'mode', 'idem_key'])
        .doUpdateSet({
          request_hash: row.request_hash,
          status: row.status,
          response_status: row.response_status,
          response_body: row.response_body,
          created_at: row.created_at,
          expires_at: row.expires_at,
        })
        .where('idempotency_keys.expires_at', '<=', row.created_at),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}
