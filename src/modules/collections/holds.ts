import { type SqlBool, sql } from 'kysely';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';

/**
 * Why automatic chasing of an obligation is held back now: an open dispute on it or on its plan stops reminders
 * (all of them), attempts and late fees; an open promise to pay on it or on its plan stops automatic reminders
 * and attempts. A dispute comes first. Null when nothing holds it.
 */
export type Hold = 'dispute_open' | 'promise_open';

/** The rows that cover an obligation: named by it, or on its plan without naming another obligation. */
const covers = (obligationId: string, trackId: string | null) =>
  trackId === null
    ? sql<SqlBool>`obligation_id = ${obligationId}`
    : sql<SqlBool>`(obligation_id = ${obligationId} or (track_id = ${trackId} and obligation_id is null))`;

export async function disputeHoldsObligation(
  db: DbOrTrx,
  tenant: TenantRef,
  obligation: { id: string; track_id: string | null },
): Promise<boolean> {
  const row = await db
    .selectFrom('disputes')
    .select('id')
    .where(inTenant(tenant))
    .where('status', '=', 'open')
    .where(covers(obligation.id, obligation.track_id))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function promiseHoldsObligation(
  db: DbOrTrx,
  tenant: TenantRef,
  obligation: { id: string; track_id: string | null },
): Promise<boolean> {
  if (obligation.track_id === null) return false;
  const row = await db
    .selectFrom('promises')
    .select('id')
    .where(inTenant(tenant))
    .where('status', '=', 'open')
    .where(covers(obligation.id, obligation.track_id))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The hold on an obligation's automatic chasing (reminders of its schedule, attempts), dispute first. */
export async function holdOnObligation(
  db: DbOrTrx,
  tenant: TenantRef,
  obligation: { id: string; track_id: string | null },
): Promise<Hold | null> {
  if (await disputeHoldsObligation(db, tenant, obligation)) return 'dispute_open';
  if (await promiseHoldsObligation(db, tenant, obligation)) return 'promise_open';
  return null;
}

/** An open dispute on the plan as a whole, or on any of its obligations or payments. */
export async function disputeOnPlan(db: DbOrTrx, tenant: TenantRef, trackId: string): Promise<boolean> {
  const row = await db
    .selectFrom('disputes')
    .select('id')
    .where(inTenant(tenant))
    .where('status', '=', 'open')
    .where('track_id', '=', trackId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
