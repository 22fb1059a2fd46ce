import type { DbOrTrx } from '../../db/schema.js';
import { inTenantGroup, type TenantGroup } from '../../db/scoping.js';

// The obligations' reminder-stage marker (`remind_stage`, `remind_at`): which automatic reminder stage of an
// obligation comes next, and when. The reminders sweep finds the stages that fell due and moves the marker on
// through these functions, so the obligations table is written only by the module that owns it.

/** Obligations of a tenant group whose next automatic reminder stage has come. */
export function obligationsToRemind(db: DbOrTrx, group: TenantGroup, now: string, limit: number) {
  return db
    .selectFrom('obligations')
    .select(['id', 'workspace_id'])
    .where(inTenantGroup(group))
    .where('remind_at', '<=', now)
    .orderBy('remind_at')
    .limit(limit)
    .execute();
}

/** When the next automatic reminder stage of a tenant group falls due after `now`; null when none will. */
export async function nextToRemind(db: DbOrTrx, group: TenantGroup, now: string): Promise<string | null> {
  const row = await db
    .selectFrom('obligations')
    .select((eb) => eb.fn.min('remind_at').as('next'))
    .where(inTenantGroup(group))
    .where('remind_at', '>', now)
    .executeTakeFirst();
  return row?.next ?? null;
}

/**
 * Moves an obligation's reminder stage on from `from` to `next` (null stage and time: no stage is left), only
 * while it is still at `from`: of two sweeps that read the same stage, one moves it. Returns whether it moved.
 */
export async function moveRemindStage(
  db: DbOrTrx,
  obligationId: string,
  from: number,
  next: { stage: number | null; at: string | null },
): Promise<boolean> {
  const moved = await db
    .updateTable('obligations')
    .set({ remind_stage: next.stage, remind_at: next.at })
    .where('id', '=', obligationId)
    .where('remind_stage', '=', from)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) > 0;
}
