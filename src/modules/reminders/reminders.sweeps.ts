import { sweepTenant } from '../../clock/tenant-clocks.js';
import type { Trx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { eachDue } from '../../jobs/sweep-batches.js';
import { earliest, type SweepDefinition } from '../../jobs/sweeps.js';
import { quietHoursEnd } from '../../lib/calendar.js';
import { type ContactPolicy, contactPolicyOf } from '../../lib/contact-policy.js';
import type { Tenant } from '../../lib/tenant.js';
import type { Channel } from '../../ports/messages.js';
import { type CustomersTable, customerRowById, optOutsOf } from '../customers/customers.service.js';
import { payerOfSchedule } from '../mandates/index.js';
import {
  findObligation,
  findScheduleRow,
  latestDueStage,
  moveRemindStage,
  nextToRemind,
  OPEN_OBLIGATION,
  obligationsToRemind,
  REMINDER_STAGES,
  stageStart,
} from '../schedules/index.js';
import { customerOfTrack } from '../tracks/index.js';
import { deliverReminder } from './reminders.delivery.js';
import { loadSubject, skipReasonOf } from './reminders.facts.js';
import * as repo from './reminders.repository.js';
import { defaultChannel, recipientOf, reminderRow } from './reminders.service.js';

const BATCH = 200;

/** The customer an obligation's reminders go to: its plan's, else the payer of its schedule's newest mandate. */
async function customerOf(
  trx: Trx,
  tenant: Tenant,
  obligation: { track_id: string | null; schedule_id: string },
) {
  if (obligation.track_id) return customerOfTrack(trx, obligation.track_id);
  return payerOfSchedule(trx, tenant.workspaceId, obligation.schedule_id);
}

/**
 * The stage of an obligation that has fallen due makes its reminder, once (the obligation's stage moves on in
 * the same transaction, conditional on the stage it leaves, and the reminder is unique per obligation and
 * stage). Stages passed over while no sweep ran are kept as skipped (`superseded`); only the latest is sent.
 * The reminder is queued for the moment quiet hours allow, or skipped at once when the money no longer calls
 * for it. A paid or cancelled obligation, or a cancelled schedule, gets no later stage.
 */
async function remindStage(trx: Trx, tenant: Tenant, obligationId: string): Promise<boolean> {
  const now = tenant.clock.now().toISOString();
  const obligation = await findObligation(trx, tenant, obligationId);
  if (!obligation || obligation.remind_at === null || obligation.remind_stage === null) return false;
  if (obligation.remind_at > now) return false;
  const schedule = await findScheduleRow(trx, tenant, obligation.schedule_id);
  if (!schedule) return false;
  const from = obligation.remind_stage;
  const latest = latestDueStage(obligation.due_date, from, schedule.timezone, now) ?? from;
  const finished =
    !OPEN_OBLIGATION.includes(obligation.status) || ['cancelled', 'completed'].includes(schedule.status);
  const next = latest + 1;
  const nextAt = finished ? null : stageStart(obligation.due_date, next, schedule.timezone);
  const moved = await moveRemindStage(trx, obligation.id, from, {
    stage: nextAt === null ? null : next,
    at: nextAt,
  });
  if (!moved) return false;

  const customerId = await customerOf(trx, tenant, obligation);
  if (!customerId) return true;
  const customer = await customerRowById(trx, customerId);
  const subject = await loadSubject(trx, tenant, {
    customerId,
    trackId: obligation.track_id,
    obligationId: obligation.id,
  });
  const policy = contactPolicyOf(subject.workspace.contact_policy);
  const channel = policyChannel(customer, policy);
  const recipient = recipientOf(customer, channel) ?? '';
  const skip = await skipReasonOf(trx, subject, { templated: true, automatic: true });
  for (let stage = from; stage <= latest; stage++) {
    const reason = stage < latest ? 'superseded' : skip;
    const sendAt =
      quietHoursEnd(now, customer.time_zone ?? subject.workspace.timezone, policy.quietHours) ?? now;
    const row = await reminderRow(trx, tenant, {
      customer,
      trackId: obligation.track_id,
      obligationId: obligation.id,
      channel,
      recipient,
      message: null,
      sendAt,
      source: 'schedule',
      stage: REMINDER_STAGES[stage]?.name ?? null,
    });
    await repo.insert(
      trx,
      reason === null ? row : { ...row, status: 'skipped', skip_reason: reason, next_try_at: null },
    );
  }
  return true;
}

/**
 * The channel of an automatic reminder: the first of the contact policy's channels the customer can be reached on
 * and has not opted out of; else the one a reminder takes when none is asked.
 */
function policyChannel(customer: CustomersTable, policy: ContactPolicy): Channel {
  const optedOut = optOutsOf(customer);
  return (
    policy.channels.find((channel) => recipientOf(customer, channel) && !optedOut.includes(channel)) ??
    defaultChannel(customer)
  );
}

/** Automatic reminders of reminder_only and mixed schedules: each obligation's stages as they fall due. */
export const reminderStagesSweep: SweepDefinition = {
  name: 'reminders.schedule',
  everyMs: 60_000,
  async run(ctx, scope) {
    return eachDue(scope, {
      batch: BATCH,
      read: (limit) => obligationsToRemind(ctx.db, scope, scope.now.toISOString(), limit),
      handle(found) {
        const tenant = sweepTenant(scope, found.workspace_id);
        return inTransaction(ctx, null, (trx) => remindStage(trx, tenant, found.id));
      },
    });
  },
  async nextDueAfter(ctx, scope) {
    return earliest(await nextToRemind(ctx.db, scope, scope.now.toISOString()));
  },
  // A stage that falls outside quiet hours is sent at once.
  feeds: ['reminders.send'],
};

/** Queued reminders whose time has come (their send time, a retry, the end of quiet hours). */
export const sendRemindersSweep: SweepDefinition = {
  name: 'reminders.send',
  everyMs: 60_000,
  async run(ctx, scope) {
    return eachDue(scope, {
      batch: BATCH,
      read: (limit) => repo.dueToSend(ctx.db, scope, scope.now.toISOString(), limit),
      idOf: (found) => found.id,
      async handle(found) {
        try {
          return await deliverReminder(ctx, sweepTenant(scope, found.workspace_id), found.id);
        } catch (error) {
          // One reminder that cannot be handled holds up no other; it is taken again once its claim lapses.
          ctx.log?.error({ err: error, reminderId: found.id }, 'reminder could not be sent');
          return false;
        }
      },
    });
  },
  async nextDueAfter(ctx, scope) {
    const next = await repo.nextToSend(ctx.db, scope, scope.now.toISOString());
    return earliest(next.tryAt, next.claimEnds);
  },
};
