import { sql } from 'kysely';
import type { Trx } from '../db/schema.js';
import { inTenant } from '../db/scoping.js';
import { AppError, fieldError, invalidState, notFound } from '../lib/app-error.js';
import { newId } from '../lib/ids.js';
import type { Tenant } from '../lib/tenant.js';
import * as obligations from '../modules/schedules/obligations.repository.js';
import { obligationToEvent } from '../modules/schedules/schedules.mapper.js';
import * as schedules from '../modules/schedules/schedules.repository.js';
import { OPEN_OBLIGATION } from '../modules/schedules/schedules.table.js';
import { lockTrack } from '../modules/tracks/tracks.repository.js';
import type { TracksTable } from '../modules/tracks/tracks.table.js';
import { recordEvent } from '../outbox/outbox.js';
import { applyBalanceChange } from './balance.js';
import { completeIfDone, emitSchedule, settlePaidOffPlan } from './schedule-completion.js';
import type { CompletedSchedule, WriteOffsTable, WrittenOffObligation } from './write-offs.table.js';

export type { WriteOffsTable } from './write-offs.table.js';

export interface WriteOffRequest {
  /** Default: the whole balance. */
  amount?: number | undefined;
  reason: string;
  /** An obligation that gives up its part first (a disputed one), whatever its due date. */
  obligationId?: string | undefined;
}

/** A write-off as events and resolutions show it. */
export const writeOffOf = (row: WriteOffsTable) => ({
  id: row.id,
  amount: row.amount,
  reason: row.reason,
  createdAt: row.created_at,
  reversedAt: row.reversed_at,
});

async function lockedPlan(trx: Trx, tenant: Tenant, trackId: string): Promise<TracksTable> {
  const plan = await lockTrack(trx, tenant, trackId);
  if (!plan) throw notFound('track', trackId);
  return plan;
}

/**
 * Gives up `amount` of a plan's balance (default: all of it), in the caller's transaction: the plan's amount
 * drops through the money core (a `plan.written_off` entry, not a payment), its open obligations that now ask
 * more than the balance are written off latest due date first (one whose whole remaining ask goes is
 * `written_off` with its amount kept, one partly covered asks less and stays open), and a plan with nothing
 * left completes with its schedules. `amountField` names the amount in a refusal (a dispute's resolution names
 * its own). Returns the plan as it now is and the write-off.
 */
export async function writeOffPlan(
  trx: Trx,
  tenant: Tenant,
  trackId: string,
  request: WriteOffRequest,
  amountField = 'amount',
): Promise<{ track: TracksTable; writeOff: WriteOffsTable }> {
  const plan = await lockedPlan(trx, tenant, trackId);
  if (plan.status !== 'active' || plan.balance <= 0) throw invalidState('track', plan.status, 'write_off');
  const amount = request.amount ?? plan.balance;
  if (amount > plan.balance) {
    throw fieldError({ [amountField]: `must be at most the plan's balance of ${plan.balance}` });
  }
  const at = tenant.clock.now();
  const now = at.toISOString();
  const id = newId('writeOff', at);
  const inForce = await schedules.inForceOfTrack(trx, tenant, trackId);

  const outcome = await applyBalanceChange(trx, tenant, {
    trackId,
    amountDelta: -amount,
    paidDelta: 0,
    from: ['active'],
    entry: { type: 'plan.written_off', refs: { writeOffId: id, reason: request.reason } },
  });
  if (!outcome.ok) throw new Error(`plan ${trackId} changed under its own row lock (${outcome.reason})`);
  const track = outcome.track;

  const changed = await writeOffObligations(trx, tenant, track, now, {
    amount,
    obligationId: request.obligationId,
  });
  if (track.status === 'completed') await settlePaidOffPlan(trx, tenant, trackId);
  const completed: CompletedSchedule[] = [];
  for (const schedule of inForce) {
    const row = await schedules.findRow(trx, tenant, schedule.id);
    if (row?.status === 'completed') {
      completed.push({ id: schedule.id, statusBefore: schedule.status, topUpAtBefore: schedule.top_up_at });
    }
  }

  const writeOff: WriteOffsTable = {
    id,
    workspace_id: tenant.workspaceId,
    mode: tenant.mode,
    track_id: trackId,
    amount,
    reason: request.reason,
    ledger_entry_id: await lastEntryOf(trx, trackId, 'plan.written_off'),
    obligations: JSON.stringify(changed),
    schedules: JSON.stringify(completed),
    created_at: now,
    reversed_at: null,
  };
  await trx.insertInto('write_offs').values(writeOff).execute();
  return { track, writeOff };
}

/**
 * The plan's open obligations asking more than its balance give up the excess, latest due date first (a named
 * obligation first, giving up as much of the write-off as it asks, even when the balance not scheduled could
 * have taken it). Each
 * change is conditional on the obligation being as read (the plan's row lock keeps payments away; the overdue
 * sweep may still change a status, which the change keeps).
 */
async function writeOffObligations(
  trx: Trx,
  tenant: Tenant,
  track: TracksTable,
  now: string,
  writeOff: { amount: number; obligationId: string | undefined },
): Promise<WrittenOffObligation[]> {
  const latestFirst = await obligations.openOfTrackLatestFirst(trx, track.id);
  const named = latestFirst.find((o) => o.id === writeOff.obligationId);
  const open = named ? [named, ...latestFirst.filter((o) => o !== named)] : latestFirst;
  let excess = open.reduce((sum, o) => sum + o.amount - o.amount_paid, 0) - track.balance;
  if (named) excess = Math.max(excess, Math.min(named.amount - named.amount_paid, writeOff.amount));
  const changed: WrittenOffObligation[] = [];
  const touched = new Set<string>();
  for (const o of open) {
    if (excess <= 0) break;
    const ask = o.amount - o.amount_paid;
    const cut = Math.min(ask, excess);
    excess -= cut;
    const whole = cut === ask;
    const updated = await trx
      .updateTable('obligations')
      .set(whole ? { status: 'written_off', updated_at: now } : { amount: o.amount - cut, updated_at: now })
      .where('id', '=', o.id)
      .where('status', 'in', OPEN_OBLIGATION)
      .where('amount', '=', o.amount)
      .where('amount_paid', '=', o.amount_paid)
      .returningAll()
      .executeTakeFirst();
    if (!updated) throw new Error(`obligation ${o.id} changed under its plan's row lock`);
    touched.add(o.schedule_id);
    changed.push({
      id: o.id,
      statusBefore: o.status,
      amountBefore: o.amount,
      statusAfter: updated.status,
      amountAfter: updated.amount,
    });
  }
  for (const scheduleId of touched) await completeIfDone(trx, tenant, scheduleId);
  return changed;
}

/** The id of the plan's latest ledger entry of `type`, or of any type that moves money. */
async function lastEntryOf(trx: Trx, trackId: string, type?: 'plan.written_off') {
  let q = trx.selectFrom('ledger_entries').select(['id', 'type']).where('track_id', '=', trackId);
  q = type ? q.where('type', '=', type) : q.where('amount', '<>', 0);
  const row = await q.orderBy('id', 'desc').limit(1).executeTakeFirst();
  if (!row) throw new Error(`plan ${trackId} has no ledger entry${type ? ` of type ${type}` : ''}`);
  return row.id;
}

function cannotReverse(plan: TracksTable, message: string): AppError {
  return new AppError('invalid_state', message, { status: plan.status, action: 'reverse_write_off' });
}

/**
 * Undoes the plan's last write-off, in the caller's transaction, while it is the plan's last money change: its
 * amount goes back on the balance through the money core (`plan.write_off_reversed`; a completed plan is
 * active again), each obligation it changed is as it was (when still as the write-off left it; one written
 * off is open again, overdue when its time has come) and each schedule it completed is back in force.
 */
export async function reverseWriteOff(
  trx: Trx,
  tenant: Tenant,
  trackId: string,
): Promise<{ track: TracksTable; writeOff: WriteOffsTable }> {
  const plan = await lockedPlan(trx, tenant, trackId);
  const last = await trx
    .selectFrom('write_offs')
    .selectAll()
    .where('track_id', '=', trackId)
    .where(inTenant(tenant))
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!last) throw cannotReverse(plan, 'The plan has no write-off to reverse.');
  if (last.reversed_at !== null) {
    throw cannotReverse(plan, `The plan's last write-off ${last.id} is already reversed.`);
  }
  if (plan.status === 'archived') throw invalidState('track', plan.status, 'reverse_write_off');
  if ((await lastEntryOf(trx, trackId)) !== last.ledger_entry_id) {
    throw cannotReverse(
      plan,
      `The plan's money changed after write-off ${last.id} (a payment, adjustment, fee or reversal); it can no longer be reversed.`,
    );
  }
  const now = tenant.clock.now().toISOString();
  const writeOff = await trx
    .updateTable('write_offs')
    .set({ reversed_at: now })
    .where('id', '=', last.id)
    .where('reversed_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  if (!writeOff) throw cannotReverse(plan, `The plan's last write-off ${last.id} is already reversed.`);

  const outcome = await applyBalanceChange(trx, tenant, {
    trackId,
    amountDelta: writeOff.amount,
    paidDelta: 0,
    from: ['active', 'completed'],
    entry: { type: 'plan.write_off_reversed', refs: { writeOffId: writeOff.id } },
  });
  if (!outcome.ok) throw new Error(`plan ${trackId} changed under its own row lock (${outcome.reason})`);

  for (const s of JSON.parse(writeOff.schedules) as CompletedSchedule[]) {
    const back = await schedules.updateIn(trx, tenant, s.id, ['completed'], {
      status: s.statusBefore,
      top_up_at: s.topUpAtBefore,
      updated_at: now,
    });
    if (back) await emitSchedule(trx, tenant, 'schedule.updated', s.id, 'completed');
  }
  for (const o of JSON.parse(writeOff.obligations) as WrittenOffObligation[]) {
    await restoreObligation(trx, tenant, o, now);
  }
  return { track: outcome.track, writeOff };
}

async function restoreObligation(trx: Trx, tenant: Tenant, o: WrittenOffObligation, now: string) {
  if (o.statusAfter !== 'written_off') {
    await trx
      .updateTable('obligations')
      .set({ amount: o.amountBefore, updated_at: now })
      .where('id', '=', o.id)
      .where('status', 'in', OPEN_OBLIGATION)
      .where('amount', '=', o.amountAfter)
      .execute();
    return;
  }
  const reopened = await trx
    .updateTable('obligations')
    .set({
      status: sql`case when overdue_at <= ${now} then 'overdue' when amount_paid > 0 then 'partially_paid' else 'pending' end`,
      updated_at: now,
    })
    .where('id', '=', o.id)
    .where('status', '=', 'written_off')
    .where('amount', '=', o.amountAfter)
    .returningAll()
    .executeTakeFirst();
  // Overdue since it was written off: it says so as the overdue sweep would have.
  if (reopened?.status === 'overdue' && o.statusBefore !== 'overdue') {
    await recordEvent(trx, tenant, 'obligation.overdue', obligationToEvent(reopened));
  }
}
