import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import { toSafeInteger } from '../../lib/money.js';
import type { TenantRef } from '../../lib/tenant.js';

/** What payments recorded on a plan from `since` until before `until` add up to, leaving out reversed ones. */
export async function paidOnPlanSince(
  db: DbOrTrx,
  tenant: TenantRef,
  trackId: string,
  since: string,
  until: string,
): Promise<number> {
  const row = await db
    .selectFrom('payments')
    .select(sql<string | number | null>`sum(amount)`.as('total'))
    .where(inTenant(tenant))
    .where('track_id', '=', trackId)
    .where('status', '=', 'recorded')
    .where('created_at', '>=', since)
    .where('created_at', '<', until)
    .executeTakeFirst();
  return toSafeInteger(row?.total ?? 0, 'payments since the promise');
}
