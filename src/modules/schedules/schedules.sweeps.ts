import { sweepTenant } from '../../clock/tenant-clocks.js';
import { inTenantGroup } from '../../db/scoping.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { eachDue, eachDueBatch } from '../../jobs/sweep-batches.js';
import { earliest, type SweepDefinition } from '../../jobs/sweeps.js';
import { recordEvent } from '../../outbox/outbox.js';
import { findTrackForUpdate } from '../tracks/tracks.service.js';
import * as obligations from './obligations.repository.js';
import { generateObligations } from './schedules.generation.js';
import { obligationToEvent } from './schedules.mapper.js';
import * as repo from './schedules.repository.js';

const BATCH = 200;

/** Open obligations whose due date has passed in the schedule's zone become overdue, with their event. */
export const overdueSweep: SweepDefinition = {
  name: 'obligations.overdue',
  everyMs: 60_000,
  async run(ctx, scope) {
    const now = scope.now.toISOString();
    return eachDueBatch(scope, { batch: BATCH }, (size) =>
      inTransaction(ctx, null, async (trx) => {
        const due = await obligations.fallingOverdue(trx, ctx.dialect, scope, now, size);
        if (due.length === 0) return { found: 0, handled: 0 };
        const marked = await obligations.markOverdue(
          trx,
          due.map((o) => o.id),
          now,
        );
        for (const o of marked) {
          const tenant = sweepTenant(scope, o.workspace_id);
          await recordEvent(trx, tenant, 'obligation.overdue', obligationToEvent(o));
        }
        return { found: due.length, handled: marked.length };
      }),
    );
  },
  async nextDueAfter(ctx, scope) {
    return earliest(await obligations.nextFallingOverdue(ctx.db, scope, scope.now.toISOString()));
  },
};

/** Active open-ended schedules are kept 12 obligations ahead of today, in their zone. */
export const topUpSweep: SweepDefinition = {
  name: 'schedules.top_up',
  everyMs: 60_000,
  async run(ctx, scope) {
    const now = scope.now.toISOString();
    return eachDue(scope, {
      batch: BATCH,
      read: (limit) =>
        ctx.db
          .selectFrom('schedules')
          .select(['id', 'workspace_id', 'track_id'])
          .where(inTenantGroup(scope))
          .where('status', '=', 'active')
          .where('top_up_at', '<=', now)
          .orderBy('top_up_at')
          .limit(limit)
          .execute(),
      handle(found) {
        const tenant = sweepTenant(scope, found.workspace_id);
        return inTransaction(ctx, null, async (trx) => {
          const track = found.track_id
            ? ((await findTrackForUpdate(trx, ctx.dialect, tenant, found.track_id)) ?? null)
            : null;
          const schedule = await repo.findByIdForUpdate(trx, ctx.dialect, tenant, found.id);
          if (schedule?.status !== 'active' || schedule.top_up_at === null || schedule.top_up_at > now)
            return 0;
          const { created } = await generateObligations(trx, tenant, schedule, track);
          return created.length;
        });
      },
    });
  },
  async nextDueAfter(ctx, scope) {
    const row = await ctx.db
      .selectFrom('schedules')
      .select((eb) => eb.fn.min('top_up_at').as('next'))
      .where(inTenantGroup(scope))
      .where('status', '=', 'active')
      .where('top_up_at', '>', scope.now.toISOString())
      .executeTakeFirst();
    return earliest(row?.next);
  },
  // The obligations it makes are looked at by these at once (one already due, say, or its reminder stage).
  feeds: ['obligations.overdue', 'attempts.create', 'reminders.schedule'],
};
