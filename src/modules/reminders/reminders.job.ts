import { Type } from 'typebox';
import { loadTenant } from '../../clock/tenant-clocks.js';
import { defineJob } from '../../jobs/job.js';
import { deliverReminder } from './reminders.delivery.js';

/**
 * `POST /reminders/send`: the reminders it made due, sent at once. Each delivery holds its reminder under a
 * claim, so the send sweep (which would take them within a minute anyway) never sends one twice at a time.
 */
export const sendRemindersJob = defineJob({
  name: 'reminders.send',
  payload: Type.Object({
    workspaceId: Type.String(),
    mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
    reminderIds: Type.Array(Type.String()),
  }),
  maxAttempts: 1,
  backoffMs: () => 60_000,
  async run(ctx, { workspaceId, mode, reminderIds }) {
    const tenant = await loadTenant(ctx.db, ctx.clock, { workspaceId, mode });
    for (const id of reminderIds) {
      try {
        await deliverReminder(ctx, tenant, id);
      } catch (error) {
        // One reminder that cannot be handled holds up no other; the sweep takes it again.
        ctx.log.error({ err: error, reminderId: id }, 'reminder could not be sent');
      }
    }
    return undefined;
  },
});
