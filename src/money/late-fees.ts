import type { Trx } from '../db/schema.js';
import { fieldError, invalidState, notFound } from '../lib/app-error.js';
import { startOfFollowingDay } from '../lib/calendar.js';
import { newId } from '../lib/ids.js';
import { feeOf, lateFeeOf, periodDue } from '../lib/late-fee.js';
import type { Tenant } from '../lib/tenant.js';
import { disputeHoldsObligation } from '../modules/collections/holds.js';
import * as obligations from '../modules/schedules/obligations.repository.js';
import { obligationToEvent } from '../modules/schedules/schedules.mapper.js';
import * as schedules from '../modules/schedules/schedules.repository.js';
import {
  type ObligationsTable,
  OPEN_OBLIGATION,
  type SchedulesTable,
} from '../modules/schedules/schedules.table.js';
import { lockTrack } from '../modules/tracks/tracks.repository.js';
import { recordEvent } from '../outbox/outbox.js';
import { applyBalanceChange } from './balance.js';
import { completeIfDone, settlePaidOffPlan } from './schedule-completion.js';

const sameInstant = (a: string | null, b: string) => a !== null && Date.parse(a) === Date.parse(b);

/** A fee obligation on the instalment it follows, for its period `k` falling due on `date`. */
function feeRow(
  instalment: ObligationsTable,
  schedule: SchedulesTable,
  k: number,
  dueDate: string,
  amount: number,
  at: Date,
): ObligationsTable {
  const now = at.toISOString();
  return {
    id: newId('obligation', at),
    kind: 'fee',
    workspace_id: instalment.workspace_id,
    mode: instalment.mode,
    schedule_id: instalment.schedule_id,
    track_id: instalment.track_id,
    sequence: instalment.sequence,
    due_date: dueDate,
    amount,
    amount_paid: 0,
    currency: instalment.currency,
    status: 'pending',
    overdue_at: startOfFollowingDay(dueDate, schedule.timezone),
    paid_at: null,
    allocations: '[]',
    collect_at: null,
    remind_stage: null,
    remind_at: null,
    checkout_id: null,
    checkout_url: null,
    checkout_provider: null,
    checkout_provider_reference: null,
    checkout_completed_at: null,
    fee_next_at: null,
    fee_of: instalment.id,
    fee_period: k,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Part of the money core: charges the late fee period of an instalment that fell due at `dueAt` (its
 * `fee_next_at` as the sweep read it), in the caller's transaction, under its plan's row lock, and moves the
 * instalment on to its next period (none once the policy charges no more, a cap is reached or it is closed),
 * conditional on `fee_next_at` still being `dueAt`: a period is looked at once, and the unique index of fee_of
 * and fee_period keeps it from being charged twice. No fee while the schedule is not active or a dispute is open
 * on the instalment or its plan: the period is skipped. The fee is an obligation of its own on the plan, whose
 * amount and balance rise by it (ledger fee.charged, event fee.charged). Returns the fee, or null when none was
 * charged.
 */
export async function chargeLateFee(
  trx: Trx,
  tenant: Tenant,
  instalmentId: string,
  dueAt: string,
): Promise<ObligationsTable | null> {
  const seen = await obligations.findById(trx, tenant, instalmentId);
  if (!seen?.track_id || seen.kind !== 'instalment' || !sameInstant(seen.fee_next_at, dueAt)) return null;
  const track = await lockTrack(trx, tenant, seen.track_id);
  const instalment = await obligations.findById(trx, tenant, instalmentId);
  if (!instalment?.fee_next_at || !sameInstant(instalment.fee_next_at, dueAt)) return null;
  const from = instalment.fee_next_at;
  const k = instalment.fee_period ?? 0;
  const schedule = await schedules.findRow(trx, tenant, instalment.schedule_id);
  const policy = schedule ? lateFeeOf(schedule.late_fee) : null;
  const stop = () =>
    obligations.setFeeNext(trx, instalment.id, from, { fee_next_at: null, fee_period: null });
  if (
    !schedule ||
    !policy ||
    track?.status !== 'active' ||
    !OPEN_OBLIGATION.includes(instalment.status) ||
    schedule.status === 'cancelled' ||
    schedule.status === 'completed'
  ) {
    await stop();
    return null;
  }
  const period = periodDue(policy, instalment.due_date, k, schedule.timezone);
  const following = periodDue(policy, instalment.due_date, k + 1, schedule.timezone);
  const next = following
    ? { fee_next_at: following.at, fee_period: k + 1 }
    : { fee_next_at: null, fee_period: null };
  if (!period || schedule.status !== 'active' || (await disputeHoldsObligation(trx, tenant, instalment))) {
    await obligations.setFeeNext(trx, instalment.id, from, next);
    return null;
  }
  const room = Math.min(
    policy.cap_per_obligation === null
      ? Number.POSITIVE_INFINITY
      : policy.cap_per_obligation - (await obligations.feesCharged(trx, { feeOf: instalment.id })),
    policy.cap_per_plan === null
      ? Number.POSITIVE_INFINITY
      : policy.cap_per_plan - (await obligations.feesCharged(trx, { trackId: track.id })),
  );
  const fee = Math.min(feeOf(policy, instalment.amount - instalment.amount_paid), room);
  const capped = room <= fee;
  if (fee <= 0) {
    await (capped ? stop() : obligations.setFeeNext(trx, instalment.id, from, next));
    return null;
  }
  const moved = await obligations.setFeeNext(
    trx,
    instalment.id,
    from,
    capped ? { fee_next_at: null, fee_period: null } : next,
  );
  if (!moved) return null;
  const charged = await obligations.insertFee(
    trx,
    feeRow(instalment, schedule, k, period.date, fee, tenant.clock.now()),
  );
  if (!charged) return null;
  const outcome = await applyBalanceChange(trx, tenant, {
    trackId: track.id,
    amountDelta: fee,
    paidDelta: 0,
    from: ['active'],
    entry: {
      type: 'fee.charged',
      refs: { obligationId: charged.id, feeOf: instalment.id, period: String(k) },
    },
  });
  if (!outcome.ok) throw new Error(`plan ${track.id} changed under its own row lock`);
  await recordEvent(trx, tenant, 'fee.charged', obligationToEvent(charged));
  return charged;
}

/**
 * Part of the money core: waives an open fee, in the caller's transaction, under its plan's row lock: the plan's
 * amount and balance drop by what the fee still asks (ledger fee.waived with the reason, event fee.waived) and
 * the fee becomes waived, conditional on the status it leaves. A plan it leaves owing nothing is completed.
 * Only a fee: an instalment is a validation_error naming `id`; a fee not open is invalid_state.
 */
export async function waiveFee(
  trx: Trx,
  tenant: Tenant,
  id: string,
  reason: string,
): Promise<ObligationsTable> {
  const seen = await obligations.findById(trx, tenant, id);
  if (!seen) throw notFound('obligation', id);
  if (seen.kind !== 'fee' || !seen.track_id) {
    throw fieldError({ id: 'is an instalment; only a fee (kind fee) can be waived' });
  }
  await lockTrack(trx, tenant, seen.track_id);
  const fee = await obligations.findById(trx, tenant, id);
  if (!fee?.track_id || !OPEN_OBLIGATION.includes(fee.status)) {
    throw invalidState('obligation', fee?.status ?? seen.status, 'waive');
  }
  const now = tenant.clock.now().toISOString();
  const waived = await obligations.waive(trx, id, fee.status, now);
  if (!waived) throw invalidState('obligation', fee.status, 'waive');
  const outcome = await applyBalanceChange(trx, tenant, {
    trackId: fee.track_id,
    amountDelta: -(fee.amount - fee.amount_paid),
    paidDelta: 0,
    from: ['active', 'completed'],
    entry: { type: 'fee.waived', refs: { obligationId: id, reason } },
  });
  if (!outcome.ok) {
    throw invalidState('track', 'track' in outcome ? outcome.track.status : 'missing', 'waive_fee');
  }
  if (outcome.track.status === 'completed') await settlePaidOffPlan(trx, tenant, fee.track_id);
  else await completeIfDone(trx, tenant, fee.schedule_id);
  await recordEvent(trx, tenant, 'fee.waived', obligationToEvent(waived));
  return waived;
}
