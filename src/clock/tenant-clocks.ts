import type { Db, DbOrTrx } from '../db/schema.js';
import { type Clock, fixedClock, offsetClock } from '../lib/clock.js';
import type { Mode, Tenant, TenantRef } from '../lib/tenant.js';
import type { SweepScope } from './sweep-scope.js';
import type { TestClockStatus } from './test-clocks.table.js';

/**
 * A tenant's clock: live mode runs on the app's clock (system time), test mode on the workspace's test clock,
 * the app's clock plus the offset the workspace moved it by.
 */
export function tenantClock(base: Clock, mode: Mode, testOffsetMs: number | null | undefined): Clock {
  return mode === 'live' ? base : offsetClock(base, testOffsetMs ?? 0);
}

export async function testClockOffset(db: DbOrTrx, workspaceId: string): Promise<number> {
  return (await testClockState(db, workspaceId)).offsetMs;
}

export interface TestClockState {
  offsetMs: number;
  status: TestClockStatus;
  /** While advancing: the instant its due work has reached (see `test_clocks.swept_to`). */
  sweptTo: string | null;
}

export async function testClockState(db: DbOrTrx, workspaceId: string): Promise<TestClockState> {
  const row = await db
    .selectFrom('test_clocks')
    .select(['offset_ms', 'status', 'swept_to'])
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return row
    ? { offsetMs: Number(row.offset_ms), status: row.status, sweptTo: row.swept_to }
    : { offsetMs: 0, status: 'ready', sweptTo: null };
}

/** The tenant with its clock, for work that starts from stored rows rather than from a request's key. */
export async function loadTenant(db: DbOrTrx, base: Clock, ref: TenantRef): Promise<Tenant> {
  const offset = ref.mode === 'test' ? await testClockOffset(db, ref.workspaceId) : 0;
  return { workspaceId: ref.workspaceId, mode: ref.mode, clock: tenantClock(base, ref.mode, offset) };
}

/**
 * Moves a ready test clock from offset `from` to `to` and leaves it in `status` (advancing: with the instant its
 * due work reached, `sweptTo`), only if it still is at `from` and ready (two advances at once: one wins, the
 * other sees the clock moved). Returns whether it moved.
 */
export async function moveTestClock(
  trx: DbOrTrx,
  workspaceId: string,
  move: { from: number; to: number; status: TestClockStatus; sweptTo: string | null; now: string },
): Promise<boolean> {
  const { from, to, status, now } = move;
  const swept_to = status === 'advancing' ? move.sweptTo : null;
  if (from === 0) {
    const inserted = await trx
      .insertInto('test_clocks')
      .values({ workspace_id: workspaceId, offset_ms: to, status, swept_to, updated_at: now })
      .onConflict((oc) =>
        oc
          .column('workspace_id')
          .doUpdateSet({ offset_ms: to, status, swept_to, updated_at: now })
          .where('test_clocks.offset_ms', '=', 0)
          .where('test_clocks.status', '=', 'ready'),
      )
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  }
  const updated = await trx
    .updateTable('test_clocks')
    .set({ offset_ms: to, status, swept_to, updated_at: now })
    .where('workspace_id', '=', workspaceId)
    .where('offset_ms', '=', from)
    .where('status', '=', 'ready')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/**
 * An advancing test clock, still at the offset its advance left, has its due work done up to `sweptTo`; returns
 * whether it was still advancing there.
 */
export async function recordSweptTo(
  trx: DbOrTrx,
  workspaceId: string,
  advance: { offsetMs: number; sweptTo: string; now: string },
): Promise<boolean> {
  const updated = await trx
    .updateTable('test_clocks')
    .set({ swept_to: advance.sweptTo, updated_at: advance.now })
    .where('workspace_id', '=', workspaceId)
    .where('offset_ms', '=', advance.offsetMs)
    .where('status', '=', 'advancing')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/**
 * An advancing test clock, still at the offset its advance left, is ready again: that advance's due work is done.
 * Returns whether it was.
 */
export async function finishAdvance(
  trx: DbOrTrx,
  workspaceId: string,
  advance: { offsetMs: number; now: string },
): Promise<boolean> {
  const updated = await trx
    .updateTable('test_clocks')
    .set({ status: 'ready', swept_to: null, updated_at: advance.now })
    .where('workspace_id', '=', workspaceId)
    .where('offset_ms', '=', advance.offsetMs)
    .where('status', '=', 'advancing')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/**
 * The scopes a sweep covers at `base`'s time: all live tenants, the test tenants still on real time, and each
 * moved test clock on its own time. An advancing test clock is left out: its advance's job does its due work,
 * a batch at a time, so that one workspace's backlog never holds up the sweeps of the others.
 */
export async function sweepScopes(db: Db, base: Clock): Promise<SweepScope[]> {
  const now = base.now();
  const own = await db
    .selectFrom('test_clocks')
    .select(['workspace_id', 'offset_ms', 'status'])
    .where((eb) => eb.or([eb('offset_ms', '<>', 0), eb('status', '<>', 'ready')]))
    .execute();
  return [
    { mode: 'live', now },
    { mode: 'test', now, exceptWorkspaceIds: own.map((row) => row.workspace_id) },
    ...own
      .filter((row) => row.status === 'ready')
      .map(
        (row): SweepScope => ({
          mode: 'test',
          workspaceId: row.workspace_id,
          now: new Date(now.getTime() + Number(row.offset_ms)),
        }),
      ),
  ];
}

/**
 * A tenant of a sweep's scope, on the scope's time and standing still there: everything a sweep does and writes
 * for it is as of `scope.now`, so what it makes due at that instant (an attempt, a reminder) is due for the sweeps
 * that follow it on the same scope, however many milliseconds the work took.
 */
export function sweepTenant(scope: SweepScope, workspaceId: string): Tenant {
  return { workspaceId, mode: scope.mode, clock: fixedClock(scope.now) };
}
