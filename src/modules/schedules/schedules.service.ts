import type { AppContext } from '../../context.js';
import type { DbOrTrx, Trx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { AppError, fieldError, invalidState, notFound } from '../../lib/app-error.js';
import { DateOutOfRangeError, installmentAmounts, LAST_DATE, localDate } from '../../lib/calendar.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { toInstant } from '../../lib/instant.js';
import { stringifyMetadata } from '../../lib/json.js';
import { lateFeeOf } from '../../lib/late-fee.js';
import { isCurrency } from '../../lib/money.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import { completeIfDone, syncWithPlan } from '../../money/index.js';
import { recordEvent } from '../../outbox/outbox.js';
import { ProviderCallError } from '../../ports/live-provider.js';
import type { AuthContext } from '../api-keys/api-keys.service.js';
import { customerRow, payerEmailOf } from '../customers/customers.service.js';
import { liveProvider, providerCallAnswer, railProvider } from '../providers/adapters.service.js';
import type { TracksTable } from '../tracks/tracks.mapper.js';
import { findTrack, findTrackForUpdate } from '../tracks/tracks.service.js';
import { findWorkspace } from '../workspaces/workspaces.service.js';
import * as obligations from './obligations.repository.js';
import { refuseWhenCovered } from './schedules.coverage.js';
import { discountOf, storedDiscount } from './schedules.discount.js';
import { AHEAD, generateObligations, MAX_GENERATED, sequenceRange } from './schedules.generation.js';
import { restartFees, storedLateFee } from './schedules.late-fee.js';
import { obligationChange, obligationToApi, toApi } from './schedules.mapper.js';
import * as repo from './schedules.repository.js';
import type {
  Obligation,
  ObligationListQuery,
  Schedule,
  ScheduleAction,
  ScheduleActionRequest,
  ScheduleActionResult,
  ScheduleChanges,
  ScheduleCreate,
  ScheduleListQuery,
} from './schedules.schemas.js';
import {
  type EarlySettlementDiscount,
  RAIL_PROVIDER,
  REPEATING_FREQUENCIES,
  type ScheduleStatus,
  type SchedulesTable,
} from './schedules.table.js';

// Reads other modules make of schedules, and the table's types and constants they need.
export {
  /** The schedule, locked until the transaction ends (PostgreSQL): generation and actions queue on it. */
  findByIdForUpdate as findScheduleForUpdate,
  /** The stored row alone, without the next due date. */
  findRow as findScheduleRow,
} from './schedules.repository.js';
export type { ObligationsTable, SchedulesTable } from './schedules.table.js';
export { OPEN_OBLIGATION, RAIL_PROVIDER } from './schedules.table.js';

/** The states each action starts from. */
const ACTION_FROM: Record<ScheduleAction, readonly ScheduleStatus[]> = {
  activate: ['draft'],
  pause: ['active'],
  resume: ['paused'],
  cancel: ['draft', 'active', 'paused'],
  generate_obligations: ['active', 'paused'],
  sync_payment_plan: ['active', 'paused', 'completed'],
};

/** Checks the fields that depend on each other; the schema has checked each one alone. */
function checkRule(input: ScheduleCreate, startDate: string, endDate: string | null): void {
  const problems: Record<string, string> = {};
  if (input.interval !== undefined && !REPEATING_FREQUENCIES.includes(input.frequency)) {
    problems.interval = 'applies only to the frequencies daily, weekly, monthly and custom';
  }
  if (input.frequency === 'custom' && input.interval === undefined) {
    problems.interval = 'is required for frequency custom (the number of days between obligations)';
  }
  if (endDate !== null) {
    if (input.frequency === 'one_time' || input.frequency === 'installment_sequence') {
      problems.end_date = `does not apply to frequency ${input.frequency}`;
    } else if (endDate < startDate) {
      problems.end_date = 'must not be before start_date';
    }
  }
  if (input.target_type !== 'generic_collection' && !input.target_id) {
    problems.target_id = `is required for target_type ${input.target_type}: the plan (trk_) the member pays into`;
  }
  if (input.frequency === 'installment_sequence' && !input.target_id) {
    problems.target_id = 'is required for frequency installment_sequence: the plan whose balance is spread';
  }
  if (Object.keys(problems).length > 0) throw fieldError(problems);
}

/** The target plan, locked; refused when it is missing, archived or already paid off. */
async function lockPlan(ctx: AppContext, trx: Trx, tenant: TenantRef, id: string, action: string) {
  const track = await findTrackForUpdate(trx, ctx.dialect, tenant, id);
  if (!track) throw notFound('track', id, 'target_id');
  if (track.status !== 'active') throw invalidState('track', track.status, action);
  return track;
}

/**
 * An instalment sequence's amounts: what the plan's balance leaves uncovered by its open obligations (`total`) in
 * `fixed_amount` parts, the last taking the rest; in the plan's `installments` when nothing else covers any of it.
 */
function instalmentsOf(track: TracksTable, total: number, fixed: number): number[] {
  const whole = total === track.balance;
  const what = whole
    ? `the plan's balance of ${total}`
    : `the ${total} of the plan's balance its other obligations leave uncovered`;
  const count = whole && track.installments !== null ? track.installments : Math.ceil(total / fixed);
  if (count > MAX_GENERATED) {
    throw fieldError({
      fixed_amount: `would make ${count} instalments of ${what}; at most ${MAX_GENERATED}`,
    });
  }
  const amounts = installmentAmounts(total, fixed, count);
  if (!amounts) {
    throw fieldError({
      fixed_amount: `cannot make ${what} in ${count} instalments: ${count - 1} of ${fixed} leave nothing for the last`,
    });
  }
  return amounts;
}

const PAST_LAST_DATE = `falls after ${LAST_DATE} in the workspace time zone; no date after ${LAST_DATE} is kept`;

/**
 * A schedule's dates: its start and end dates and every due date its first generation makes must fall on or
 * before 9999-12-31 in its zone (a schedule accepted so stops generating there), and one generation makes at most
 * 1,000 obligations.
 */
function checkDates(schedule: SchedulesTable, today: string, count?: number): void {
  for (const field of ['start_date', 'end_date'] as const) {
    const instant = schedule[field];
    if (instant === null) continue;
    try {
      localDate(instant, schedule.timezone);
    } catch (error) {
      if (error instanceof DateOutOfRangeError)
        throw fieldError({ [field]: `${PAST_LAST_DATE} (${schedule.timezone})` });
      throw error;
    }
  }
  const range = sequenceRange(schedule, 0, today, count === undefined ? {} : { count });
  if (range.pastLastDate) {
    throw fieldError({
      start_date:
        schedule.frequency === 'installment_sequence'
          ? `is so late that its ${count} monthly instalments would fall due after ${LAST_DATE}, the last date kept`
          : `is so late that its first ${AHEAD} obligations would fall due after ${LAST_DATE}, the last date kept; start earlier or set an end_date`,
    });
  }
  if (range.to - range.from <= MAX_GENERATED) return;
  throw fieldError(
    schedule.end_date === null
      ? {
          start_date: `is so far back that it would make ${range.to} obligations at once; at most ${MAX_GENERATED}`,
        }
      : { end_date: `would make ${range.to} obligations; at most ${MAX_GENERATED}` },
  );
}

async function scheduleOut(trx: DbOrTrx, tenant: TenantRef, id: string): Promise<Schedule> {
  const row = await repo.findById(trx, tenant, id);
  if (!row) throw notFound('schedule', id);
  return toApi(row);
}

/**
 * A gatewayB_virtual_account schedule's account, from its provider (the simulator in test mode), asked before
 * the schedule's transaction opens; null for other methods, or when this server has no live adapter for it.
 */
async function virtualAccountFor(
  ctx: AppContext,
  auth: AuthContext,
  scheduleId: string,
  input: ScheduleCreate,
) {
  if (input.collection_method !== 'gatewayB_virtual_account') return null;
  const provider = await railProvider(
    ctx.db,
    auth,
    'virtual_account',
    RAIL_PROVIDER.gatewayB_virtual_account as string,
  );
  const plan = input.target_id ? await findTrack(ctx.db, auth, input.target_id) : undefined;
  const payer = plan ? await customerRow(ctx.db, auth, plan.customer_id) : undefined;
  const accountName = payer?.name ?? 'Collections';
  const live = await liveProvider(ctx, auth, provider);
  if (!live) {
    const account = await ctx.ports
      .provider(auth.mode, provider)
      .virtualAccount({ reference: scheduleId, accountName });
    return account && { ...account, provider };
  }
  try {
    const account = await live.adapter.virtualAccount({
      reference: scheduleId,
      accountName,
      payerEmail: payerEmailOf(payer ?? { id: scheduleId }),
      phone: payer?.phone ?? null,
    });
    return { ...account, provider };
  } catch (error) {
    if (error instanceof ProviderCallError) throw providerCallAnswer(error, provider, 'collection_method');
    throw error;
  }
}

export async function createSchedule(
  ctx: AppContext,
  auth: AuthContext,
  input: ScheduleCreate,
): Promise<Schedule> {
  const startDate = toInstant(input.start_date, 'start_date');
  const endDate = input.end_date ? toInstant(input.end_date, 'end_date') : null;
  checkRule(input, startDate, endDate);
  if (input.currency !== undefined && !isCurrency(input.currency)) {
    throw fieldError({ currency: 'must be an ISO 4217 currency code such as NGN or USD' });
  }
  const status = input.status ?? 'active';
  if (input.replaces_schedule_id !== undefined && status === 'draft') {
    throw fieldError({
      replaces_schedule_id:
        'applies only to a schedule created active: a draft asks nothing, so it replaces nothing (cancel the other schedule when you activate the draft)',
    });
  }
  const lateFee =
    input.late_fee === undefined
      ? ((await findWorkspace(ctx.db, auth.workspaceId))?.late_fee_default ?? null)
      : storedLateFee(input.late_fee, 'late_fee');
  const at = auth.clock.now();
  const id = newId('schedule', at);
  const account = await virtualAccountFor(ctx, auth, id, input);
  return inTransaction(ctx, auth, async (trx) => {
    const track = input.target_id ? await lockPlan(ctx, trx, auth, input.target_id, 'create_schedule') : null;
    if (track && input.currency !== undefined && input.currency !== track.currency) {
      throw fieldError({ currency: `must be the plan's currency, ${track.currency}` });
    }
    const now = at.toISOString();
    const row: SchedulesTable = {
      id,
      workspace_id: auth.workspaceId,
      mode: auth.mode,
      target_type: input.target_type,
      target_id: input.target_id ?? null,
      track_id: track?.id ?? null,
      frequency: input.frequency,
      interval: REPEATING_FREQUENCIES.includes(input.frequency) ? (input.interval ?? 1) : null,
      collection_method: input.collection_method ?? 'manual',
      fixed_amount: input.fixed_amount,
      currency: track?.currency ?? input.currency ?? auth.workspace.defaultCurrency,
      timezone: auth.workspace.timezone,
      start_date: startDate,
      end_date: endDate,
      status,
      next_sequence: 0,
      top_up_at: null,
      metadata: stringifyMetadata(input.metadata),
      virtual_account: account ? JSON.stringify(account) : null,
      virtual_account_number: account?.number ?? null,
      early_settlement_discount: storedDiscount(input.early_settlement_discount ?? null),
      late_fee: lateFee,
      created_at: now,
      updated_at: now,
    };
    const today = localDate(at, row.timezone);
    if (row.frequency !== 'installment_sequence') checkDates(row, today);
    if (input.replaces_schedule_id !== undefined) {
      await replaceSchedule(ctx, trx, auth, track, input.replaces_schedule_id);
    }
    const uncovered =
      track && status === 'active' ? await refuseWhenCovered(trx, track, 'create_schedule') : null;
    const amounts =
      row.frequency === 'installment_sequence' && track
        ? instalmentsOf(track, uncovered ?? track.balance, row.fixed_amount)
        : undefined;
    if (row.frequency === 'installment_sequence') checkDates(row, today, amounts?.length);
    await repo.insert(trx, row);
    if (status === 'active') await generateObligations(trx, auth, row, track, amounts ? { amounts } : {});
    const schedule = await scheduleOut(trx, auth, row.id);
    await recordEvent(trx, auth, 'schedule.created', schedule);
    return schedule;
  });
}

/** Cancels a schedule with its open obligations, conditional on the state it leaves, with its event. */
async function cancelSchedule(trx: Trx, tenant: Tenant, schedule: SchedulesTable, action: string) {
  const now = tenant.clock.now().toISOString();
  const cancelled = await repo.updateIn(trx, tenant, schedule.id, [schedule.status], {
    status: 'cancelled',
    top_up_at: null,
    updated_at: now,
  });
  if (!cancelled) throw invalidState('schedule', schedule.status, action);
  await obligations.cancelOpenOfSchedule(trx, schedule.id, now);
  await recordEvent(trx, tenant, 'schedule.cancelled', await scheduleOut(trx, tenant, schedule.id), {
    status: schedule.status,
  });
}

/**
 * `replaces_schedule_id`: a schedule of the same plan, not cancelled or completed, that the new one replaces. It
 * is cancelled with its open obligations before the new one generates, in the same transaction, under the plan's
 * lock (taken first, as everywhere).
 */
async function replaceSchedule(
  ctx: AppContext,
  trx: Trx,
  tenant: Tenant,
  track: TracksTable | null,
  id: string,
): Promise<void> {
  const replaced = await repo.findByIdForUpdate(trx, ctx.dialect, tenant, id);
  if (!replaced) throw notFound('schedule', id, 'replaces_schedule_id');
  if (!track) {
    throw fieldError({
      replaces_schedule_id:
        'applies only to a schedule whose target is a plan: it names a schedule of that plan',
    });
  }
  if (replaced.track_id !== track.id) {
    throw fieldError({
      replaces_schedule_id: `is a schedule of ${replaced.track_id ? `another plan, ${replaced.track_id}` : 'no plan'}; a schedule replaces one of its own plan, ${track.id}`,
    });
  }
  if (!ACTION_FROM.cancel.includes(replaced.status)) {
    throw new AppError('invalid_state', `Cannot replace schedule ${id}: it is ${replaced.status}.`, {
      status: replaced.status,
      action: 'replace',
      field: 'replaces_schedule_id',
    });
  }
  await cancelSchedule(trx, tenant, replaced, 'replace');
}

/**
 * Where a transfer to a virtual account on `provider`'s rail goes: the plan of the schedule that has the account,
 * or that schedule when it has no plan; null when no schedule of the tenant has it on that rail.
 */
export async function virtualAccountTarget(
  trx: Trx,
  tenant: TenantRef,
  provider: string,
  accountNumber: string,
): Promise<{ trackId: string } | { scheduleId: string } | null> {
  const schedule = await repo.findByVirtualAccount(trx, tenant, accountNumber);
  if (!schedule?.virtual_account) return null;
  const account = JSON.parse(schedule.virtual_account) as { provider?: string };
  if ((account.provider ?? RAIL_PROVIDER[schedule.collection_method]) !== provider) return null;
  if (schedule.track_id) return { trackId: schedule.track_id };
  return { scheduleId: schedule.id };
}

export async function getSchedule(ctx: AppContext, tenant: TenantRef, id: string): Promise<Schedule> {
  return scheduleOut(ctx.db, tenant, id);
}

export async function listSchedules(
  ctx: AppContext,
  tenant: TenantRef,
  query: ScheduleListQuery,
): Promise<Page<Schedule>> {
  return paginate(
    query,
    'schedule',
    (limit, afterId) => repo.list(ctx.db, tenant, { ...query, limit }, afterId),
    toApi,
  );
}

export async function listObligations(
  ctx: AppContext,
  tenant: Tenant,
  scheduleId: string,
  query: ObligationListQuery,
): Promise<Page<Obligation>> {
  if (!(await repo.findRow(ctx.db, tenant, scheduleId))) throw notFound('schedule', scheduleId);
  const at = tenant.clock.now().toISOString();
  return paginate(
    query,
    'obligation',
    (limit, afterId) => obligations.list(ctx.db, tenant, scheduleId, { ...query, limit }, at, afterId),
    (row) => obligationToApi(row, at),
  );
}

/** A dry run's answer, carried out of its transaction so that everything it wrote is rolled back. */
class DryRun extends Error {
  constructor(readonly result: ScheduleActionResult) {
    super('dry run');
  }
}

/** What the open obligations of a schedule owe. */
async function owedBySchedule(trx: Trx, scheduleId: string): Promise<number> {
  return (await obligations.openOfSchedule(trx, scheduleId)).reduce(
    (sum, o) => sum + o.amount - o.amount_paid,
    0,
  );
}

/** Runs one action in the caller's transaction; returns the changes of the two that make obligations. */
async function runAction(
  trx: Trx,
  tenant: Tenant,
  schedule: SchedulesTable,
  track: TracksTable | null,
  action: ScheduleAction,
): Promise<Omit<ScheduleChanges, 'dry_run' | 'owed_after'> | null> {
  const now = tenant.clock.now().toISOString();
  const move = async (to: ScheduleStatus) => {
    const moved = await repo.updateIn(trx, tenant, schedule.id, [schedule.status], {
      status: to,
      updated_at: now,
      ...(to === 'cancelled' ? { top_up_at: null } : {}),
    });
    if (!moved) throw invalidState('schedule', schedule.status, action);
    return moved;
  };
  switch (action) {
    case 'activate': {
      const uncovered = track ? await refuseWhenCovered(trx, track, 'activate') : null;
      const moved = await move('active');
      const amounts =
        moved.frequency === 'installment_sequence' && track
          ? instalmentsOf(track, uncovered ?? track.balance, moved.fixed_amount)
          : undefined;
      await generateObligations(trx, tenant, moved, track, amounts ? { amounts } : {});
      return null;
    }
    case 'pause':
      await move('paused');
      return null;
    case 'resume':
      await generateObligations(trx, tenant, await move('active'), track, { skipPast: true });
      return null;
    case 'cancel':
      await move('cancelled');
      await obligations.cancelOpenOfSchedule(trx, schedule.id, now);
      return null;
    case 'generate_obligations': {
      const { created } = await generateObligations(trx, tenant, schedule, track);
      return { created: created.map((o) => obligationChange(o)), updated: [], cancelled: [] };
    }
    case 'sync_payment_plan': {
      if (!track) throw fieldError({ action: 'sync_payment_plan needs a schedule whose target is a plan' });
      const synced = await syncWithPlan(trx, tenant, schedule, track);
      if (schedule.status === 'completed' && synced.created.length > 0) {
        // A plan whose amount went up after its schedule was done: the schedule collects again.
        await move('active');
        await recordEvent(trx, tenant, 'schedule.updated', await scheduleOut(trx, tenant, schedule.id), {
          status: 'completed',
        });
      }
      await completeIfDone(trx, tenant, schedule.id);
      return synced;
    }
  }
}

/** A new early-settlement discount policy, with its `schedule.updated`. */
async function setDiscount(
  trx: Trx,
  tenant: Tenant,
  schedule: SchedulesTable,
  policy: EarlySettlementDiscount | null,
): Promise<void> {
  const stored = storedDiscount(policy);
  if (stored === schedule.early_settlement_discount) return;
  const updated = await repo.updateIn(trx, tenant, schedule.id, [schedule.status], {
    early_settlement_discount: stored,
    updated_at: tenant.clock.now().toISOString(),
  });
  if (!updated) throw invalidState('schedule', schedule.status, 'update');
  await recordEvent(trx, tenant, 'schedule.updated', await scheduleOut(trx, tenant, schedule.id), {
    early_settlement_discount: discountOf(schedule.early_settlement_discount),
  });
}

const EVENT_OF: Partial<Record<ScheduleAction, 'schedule.updated' | 'schedule.cancelled'>> = {
  activate: 'schedule.updated',
  pause: 'schedule.updated',
  resume: 'schedule.updated',
  cancel: 'schedule.cancelled',
};

/** The states a schedule's late fee policy may be changed in. */
const LATE_FEE_FROM: readonly ScheduleStatus[] = ['draft', 'active', 'paused', 'completed'];

/**
 * `PATCH /collection-schedules/{id}`: a new late fee policy and/or one action, each conditional on the state it
 * leaves. The plan (when there is one) and then the schedule are locked first, so actions, payments and the
 * worker's top-ups queue. A dry run runs the action and rolls it back, so its answer is exactly what the action
 * would do.
 */
export async function actOnSchedule(
  ctx: AppContext,
  tenant: Tenant,
  id: string,
  input: ScheduleActionRequest,
): Promise<ScheduleActionResult> {
  const { action } = input;
  if (action === undefined && input.late_fee === undefined && input.early_settlement_discount === undefined) {
    throw fieldError({ action: 'is required unless late_fee or early_settlement_discount is given' });
  }
  const lateFee = input.late_fee === undefined ? undefined : storedLateFee(input.late_fee, 'late_fee');
  const dryRun = input.dry_run === true;
  if (input.dry_run !== undefined && action !== 'generate_obligations' && action !== 'sync_payment_plan') {
    throw fieldError({ dry_run: 'applies only to the actions generate_obligations and sync_payment_plan' });
  }
  const work = async (trx: Trx): Promise<ScheduleActionResult> => {
    const found = await repo.findRow(trx, tenant, id);
    if (!found) throw notFound('schedule', id);
    const track = found.track_id
      ? ((await findTrackForUpdate(trx, ctx.dialect, tenant, found.track_id)) ?? null)
      : null;
    const locked = await repo.findByIdForUpdate(trx, ctx.dialect, tenant, id);
    if (!locked) throw notFound('schedule', id);
    let schedule = locked;
    if (action && !ACTION_FROM[action].includes(schedule.status))
      throw invalidState('schedule', schedule.status, action);
    if (input.early_settlement_discount !== undefined) {
      await setDiscount(trx, tenant, schedule, input.early_settlement_discount);
      schedule = (await repo.findByIdForUpdate(trx, ctx.dialect, tenant, id)) ?? schedule;
    }
    if (lateFee !== undefined) {
      const now = tenant.clock.now().toISOString();
      const set = await repo.setLateFee(trx, tenant, id, LATE_FEE_FROM, lateFee, now);
      if (!set) throw invalidState('schedule', schedule.status, 'change_late_fee');
      await restartFees(trx, set, now);
      schedule = set;
    }
    const changes = action ? await runAction(trx, tenant, schedule, track, action) : null;
    const out = await scheduleOut(trx, tenant, id);
    const event = action ? EVENT_OF[action] : undefined;
    if (event === 'schedule.cancelled') await recordEvent(trx, tenant, event, out, null);
    if (event === 'schedule.updated' || lateFee !== undefined) {
      await recordEvent(trx, tenant, 'schedule.updated', out, {
        ...(event === 'schedule.updated' ? { status: locked.status } : {}),
        ...(lateFee !== undefined ? { late_fee: lateFeeOf(locked.late_fee) } : {}),
      });
    }
    if (!changes) return out;
    const result = {
      ...out,
      changes: { dry_run: dryRun, ...changes, owed_after: await owedBySchedule(trx, id) },
    };
    if (dryRun) throw new DryRun(result);
    return result;
  };
  if (!dryRun) return inTransaction(ctx, tenant, work);
  try {
    await inTransaction(ctx, null, work);
  } catch (error) {
    if (!(error instanceof DryRun)) throw error;
    const { changes } = error.result;
    if (!changes) return error.result;
    const before = await scheduleOut(ctx.db, tenant, id);
    return {
      ...before,
      changes: { ...changes, created: changes.created.map((o) => ({ ...o, id: null })) },
    };
  }
  throw new Error('a dry run ended without its answer');
}
