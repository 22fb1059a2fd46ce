import { type DialectName, forUpdate } from '../../db/dialect.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant, inTenantGroup, newestFirst, type TenantGroup } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { AttemptListQuery } from './attempts.schemas.js';
import type { AttemptStatus, AttemptsTable } from './attempts.table.js';

/** Inserts an attempt; an obligation's try number is unique, so a second sweep making the same one makes none. */
export async function insert(db: DbOrTrx, row: AttemptsTable): Promise<boolean> {
  const result = await db
    .insertInto('attempts')
    .values(row)
    .onConflict((oc) => oc.columns(['obligation_id', 'attempt_number']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export function findById(db: DbOrTrx, tenant: TenantRef, id: string) {
  return db
    .selectFrom('attempts')
    .selectAll()
    .where('id', '=', id)
    .where(inTenant(tenant))
    .executeTakeFirst();
}

/** The attempt, locked until the transaction ends (PostgreSQL), so that one answer at a time is recorded. */
export function findByIdForUpdate(db: DbOrTrx, dialect: DialectName, tenant: TenantRef, id: string) {
  return forUpdate(
    dialect,
    db.selectFrom('attempts').selectAll().where('id', '=', id).where(inTenant(tenant)),
  ).executeTakeFirst();
}

/** Changes an attempt only while it is in one of `from`. */
export function updateIn(
  db: DbOrTrx,
  id: string,
  from: readonly AttemptStatus[],
  changes: Partial<AttemptsTable>,
) {
  return db
    .updateTable('attempts')
    .set(changes)
    .where('id', '=', id)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();
}

/** Cancels the attempts of an obligation not charged yet (its retries): it was collected meanwhile. */
export function cancelPendingOfObligation(db: DbOrTrx, obligationId: string, now: string) {
  return db
    .updateTable('attempts')
    .set({ status: 'cancelled', blocked_reason: null, updated_at: now })
    .where('obligation_id', '=', obligationId)
    .where('status', 'in', ['scheduled', 'blocked'])
    .execute();
}

export function list(
  db: DbOrTrx,
  tenant: TenantRef,
  query: AttemptListQuery & { limit: number },
  afterId: string | undefined,
) {
  let q = db.selectFrom('attempts').selectAll().where(inTenant(tenant));
  if (query.status) q = q.where('status', '=', query.status);
  if (query.schedule_id) q = q.where('schedule_id', '=', query.schedule_id);
  if (query.obligation_id) q = q.where('obligation_id', '=', query.obligation_id);
  return q.$call(newestFirst(afterId, query.limit)).execute();
}

/** Obligations of active automatic schedules whose first attempt is due (`collect_at`). */
export function obligationsToCollect(db: DbOrTrx, group: TenantGroup, now: string, limit: number) {
  return db
    .selectFrom('obligations')
    .select(['id', 'workspace_id'])
    .where(inTenantGroup(group))
    .where('collect_at', '<=', now)
    .where('schedule_id', 'in', (eb) =>
      eb.selectFrom('schedules').select('schedules.id').where('schedules.status', '=', 'active'),
    )
    .orderBy('collect_at')
    .limit(limit)
    .execute();
}

/**
 * Attempts the run sweep takes: scheduled or blocked ones whose time has come, and charges left in flight by a
 * worker that stopped (processing since before `staleBefore`): they are charged again under the same key.
 */
export function toRun(db: DbOrTrx, group: TenantGroup, now: string, staleBefore: string, limit: number) {
  return db
    .selectFrom('attempts')
    .select(['id', 'workspace_id'])
    .where(inTenantGroup(group))
    .where((eb) =>
      eb.or([
        eb.and([eb('status', 'in', ['scheduled', 'blocked']), eb('scheduled_for', '<=', now)]),
        eb.and([
          eb('status', '=', 'processing'),
          eb('reconcile_at', 'is', null),
          eb('attempted_at', '<=', staleBefore),
        ]),
        eb.and([eb('status', '=', 'processing'), eb('reconcile_at', '<=', now)]),
      ]),
    )
    .orderBy('scheduled_for')
    .limit(limit)
    .execute();
}

/** When the next obligation of a tenant group is to be collected after `now`; null when none is. */
export async function nextToCollect(db: DbOrTrx, group: TenantGroup, now: string): Promise<string | null> {
  const row = await db
    .selectFrom('obligations')
    .select((eb) => eb.fn.min('collect_at').as('next'))
    .where(inTenantGroup(group))
    .where('collect_at', '>', now)
    .where('schedule_id', 'in', (eb) =>
      eb.selectFrom('schedules').select('schedules.id').where('schedules.status', '=', 'active'),
    )
    .executeTakeFirst();
  return row?.next ?? null;
}

/**
 * What the run sweep takes next after `now`: the earliest attempt scheduled after it, the earliest charge in
 * flight that is not stale yet (processing since after `staleBefore`; taken again once it is), and the earliest
 * charge a real provider is to be asked about.
 */
export async function nextToRun(db: DbOrTrx, group: TenantGroup, now: string, staleBefore: string) {
  const scheduled = await db
    .selectFrom('attempts')
    .select((eb) => eb.fn.min('scheduled_for').as('next'))
    .where(inTenantGroup(group))
    .where('status', 'in', ['scheduled', 'blocked'])
    .where('scheduled_for', '>', now)
    .executeTakeFirst();
  const inFlight = await db
    .selectFrom('attempts')
    .select((eb) => eb.fn.min('attempted_at').as('since'))
    .where(inTenantGroup(group))
    .where('status', '=', 'processing')
    .where('reconcile_at', 'is', null)
    .where('attempted_at', '>', staleBefore)
    .executeTakeFirst();
  const toAsk = await db
    .selectFrom('attempts')
    .select((eb) => eb.fn.min('reconcile_at').as('next'))
    .where(inTenantGroup(group))
    .where('status', '=', 'processing')
    .where('reconcile_at', '>', now)
    .executeTakeFirst();
  return {
    scheduledFor: scheduled?.next ?? null,
    inFlightSince: inFlight?.since ?? null,
    reconcileAt: toAsk?.next ?? null,
  };
}
