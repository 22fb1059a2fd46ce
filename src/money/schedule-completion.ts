import type { Trx } from '../db/schema.js';
import type { Tenant } from '../lib/tenant.js';
import * as obligations from '../modules/schedules/obligations.repository.js';
import { toApi } from '../modules/schedules/schedules.mapper.js';
import * as schedules from '../modules/schedules/schedules.repository.js';
import type { ScheduleStatus } from '../modules/schedules/schedules.table.js';
import { recordEvent } from '../outbox/outbox.js';

/** Emits the schedule's event with the schedule as it now is. */
export async function emitSchedule(
  trx: Trx,
  tenant: Tenant,
  type: 'schedule.updated' | 'schedule.completed',
  id: string,
  previousStatus?: ScheduleStatus,
): Promise<void> {
  const row = await schedules.findById(trx, tenant, id);
  if (!row) return;
  await recordEvent(trx, tenant, type, toApi(row), previousStatus ? { status: previousStatus } : null);
}

/** A schedule with nothing left to collect is completed: every obligation paid or cancelled, none to generate. */
export async function completeIfDone(trx: Trx, tenant: Tenant, scheduleId: string): Promise<void> {
  const done = await schedules.completeIfDone(trx, tenant, scheduleId, tenant.clock.now().toISOString());
  if (done) await emitSchedule(trx, tenant, 'schedule.completed', scheduleId);
}

/**
 * A plan paid off owes nothing more: the open obligations of its schedules in force are cancelled (an
 * open-ended schedule keeps some ahead) and the schedules are completed. Called by every change that can pay a
 * plan off: a payment, and an amount lowered to what was paid.
 */
export async function settlePaidOffPlan(trx: Trx, tenant: Tenant, trackId: string): Promise<void> {
  const now = tenant.clock.now().toISOString();
  for (const schedule of await schedules.inForceOfTrack(trx, tenant, trackId)) {
    await obligations.cancelOpenOfSchedule(trx, schedule.id, now);
    const done = await schedules.updateIn(trx, tenant, schedule.id, [schedule.status], {
      status: 'completed',
      top_up_at: null,
      updated_at: now,
    });
    if (done) await emitSchedule(trx, tenant, 'schedule.completed', schedule.id);
  }
}
