import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import { toSafeInteger } from '../../lib/money.js';
import type { TenantRef } from '../../lib/tenant.js';

/** What payments recorded on a plan at or after `since` add up to, leaving out reversed ones. */
export async function paidOnPlanSince(
  db: DbOrTrx,
  tenant: TenantRef,
  trackId: string,
  since: string,
): Promise<number> {
  const row = await db
    .selectFrom('payments')
    .select(sql<string | number | null>`sum(amount)`.as('total'))
    .where(inTenant(tenant))
    .where('track_id', '=', trackId)
    .where('status', '=', 'recorded')
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return toSafeInteger(row?.total ?? 0, 'payments since the promise');
}
