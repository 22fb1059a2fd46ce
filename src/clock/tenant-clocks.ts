import type { Db, DbOrTrx } from '../db/schema.js';
import type { SweepScope } from '../jobs/sweeps.js';
import { type Clock, offsetClock } from '../lib/clock.js';
import type { Mode, Tenant, TenantRef } from '../lib/tenant.js';
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
}

export async function testClockState(db: DbOrTrx, workspaceId: string): Promise<TestClockState> {
  const row = await db
    .selectFrom('test_clocks')
    .select(['offset_ms', 'status'])
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return row ? { offsetMs: Number(row.offset_ms), status: row.status } : { offsetMs: 0, status: 'ready' };
}

/** The tenant with its clock, for work that starts from stored rows rather than from a request's key. */
export async function loadTenant(db: DbOrTrx, base: Clock, ref: TenantRef): Promise<Tenant> {
  const offset = ref.mode === 'test' ? await testClockOffset(db, ref.workspaceId) : 0;
  return { workspaceId: ref.workspaceId, mode: ref.mode, clock: tenantClock(base, ref.mode, offset) };
}

/**
 * Moves a ready test clock from offset `from` to `to` and leaves it in `status`, only if it still is at `from`
 * and ready (two advances at once: one wins, the other sees the clock moved). Returns whether it moved.
 */
export async function moveTestClock(
  trx: DbOrTrx,
  workspaceId: string,
  move: { from: number; to: number; status: TestClockStatus; now: string },
): Promise<boolean> {
  const { from, to, status, now } = move;
  if (from === 0) {
    const inserted = await trx
      .insertInto('test_clocks')
      .values({ workspace_id: workspaceId, offset_ms: to, status, updated_at: now })
      .onConflict((oc) =>
        oc
          .column('workspace_id')
          .doUpdateSet({ offset_ms: to, status, updated_at: now })
          .where('test_clocks.offset_ms', '=', 0)
          .where('test_clocks.status', '=', 'ready'),
      )
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  }
  const updated = await trx
    .updateTable('test_clocks')
    .set({ offset_ms: to, status, updated_at: now })
    .where('workspace_id', '=', workspaceId)
    .where('offset_ms', '=', from)
    .where('status', '=', 'ready')
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
    .set({ status: 'ready', updated_at: advance.now })
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

/** A tenant of a sweep's scope, on the scope's time: what a sweep writes for it is stamped as of `scope.now`. */
export function sweepTenant(base: Clock, scope: SweepScope, workspaceId: string): Tenant {
  return {
    workspaceId,
    mode: scope.mode,
    clock: offsetClock(base, scope.now.getTime() - base.now().getTime()),
  };
}
