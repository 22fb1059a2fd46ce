import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { AppError, fieldError, invalidState, notFound } from '../../lib/app-error.js';
import { addDays, localDate, startOfFollowingDay } from '../../lib/calendar.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { formatMoney } from '../../lib/money.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordEvent } from '../../outbox/outbox.js';
import type { AuthContext } from '../api-keys/index.js';
import { paidOnPlanSince } from '../payments/index.js';
import { remindOfBrokenPromise } from '../reminders/index.js';
import { findObligation, OPEN_OBLIGATION } from '../schedules/index.js';
import { findTrack } from '../tracks/index.js';
import type { PromisesTable } from './collections.table.js';
import { toApi } from './promises.mapper.js';
import * as repo from './promises.repository.js';
import {
  PROMISE_MAX_DAYS_AHEAD,
  type PromiseCreate,
  type PromiseListQuery,
  type PromiseToPay,
} from './promises.schemas.js';

function alreadyOpen(open: PromisesTable | undefined): AppError {
  return new AppError(
    'invalid_state',
    `Cannot create a promise: the plan already has an open promise${open ? `, ${open.id}` : ''}.`,
    { status: 'open', action: 'create_promise', ...(open ? { promiseId: open.id } : {}) },
  );
}

/** The date as asked: today or later in the workspace's zone, at most PROMISE_MAX_DAYS_AHEAD days ahead. */
function checkDate(date: string, today: string) {
  if (date < today) throw fieldError({ date: `must be today (${today}) or later` });
  const last = addDays(today, PROMISE_MAX_DAYS_AHEAD);
  if (date > last)
    throw fieldError({ date: `must be at most ${PROMISE_MAX_DAYS_AHEAD} days ahead (${last})` });
}

/**
 * `POST /promises`: a promise to pay `amount` on a plan (or one open obligation of it) by the end of `date` in the
 * workspace's zone. Made by the business (a key, a person in the console) or by the payer on their page (actor
 * `payer`, only on their own plans). At most one is open per plan (the unique index decides a race). Emits
 * `promise.created`.
 */
export async function createPromise(
  ctx: AppContext,
  auth: AuthContext,
  input: PromiseCreate,
): Promise<PromiseToPay> {
  const at = auth.clock.now();
  const now = at.toISOString();
  const timeZone = auth.workspace.timezone;
  checkDate(input.date, localDate(at, timeZone));
  const payer = auth.actor.type === 'payer' ? auth.actor.id : null;
  try {
    // Mapped inside the transaction: what it returns is what an Idempotency-Key keeps as the response.
    return await inTransaction(ctx, auth, async (trx) => {
      const plan = await findTrack(trx, auth, input.trackId);
      if (!plan || (payer !== null && plan.customer_id !== payer)) {
        throw notFound('track', input.trackId, 'trackId');
      }
      const obligation = input.obligationId ? await findObligation(trx, auth, input.obligationId) : undefined;
      if (input.obligationId && obligation?.track_id !== plan.id) {
        throw notFound('obligation', input.obligationId, 'obligationId');
      }
      if (plan.status !== 'active') throw invalidState('track', plan.status, 'create_promise');
      if (plan.balance === 0) throw invalidState('track', 'paid up (balance 0)', 'create_promise');
      const money = (amount: number) => `${amount} (${formatMoney(amount, plan.currency)})`;
      if (obligation && !OPEN_OBLIGATION.includes(obligation.status)) {
        throw fieldError({ obligationId: `must be an open obligation (it is ${obligation.status})` });
      }
      if (input.amount > plan.balance) {
        throw fieldError({ amount: `must be at most the plan's balance, ${money(plan.balance)}` });
      }
      const asked = obligation ? obligation.amount - obligation.amount_paid : null;
      if (asked !== null && input.amount > asked) {
        throw fieldError({ amount: `must be at most what the obligation still asks, ${money(asked)}` });
      }
      const open = await repo.openOfTrack(trx, auth, plan.id);
      if (open) throw alreadyOpen(open);
      const promise: PromisesTable = {
        id: newId('promise', at),
        workspace_id: auth.workspaceId,
        mode: auth.mode,
        track_id: plan.id,
        obligation_id: obligation?.id ?? null,
        customer_id: plan.customer_id,
        amount: input.amount,
        currency: plan.currency,
        date: input.date,
        due_at: startOfFollowingDay(input.date, timeZone),
        note: input.note?.trim() || null,
        source: payer === null ? 'business' : 'payer',
        status: 'open',
        created_at: now,
        resolved_at: null,
        updated_at: now,
      };
      await repo.insert(trx, promise);
      const created = toApi(promise);
      await recordEvent(trx, auth, 'promise.created', created);
      return created;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw alreadyOpen(await repo.openOfTrack(ctx.db, auth, input.trackId));
  }
}

export async function getPromise(ctx: AppContext, tenant: Tenant, id: string): Promise<PromiseToPay> {
  const row = await repo.findById(ctx.db, tenant, id);
  if (!row) throw notFound('promise', id);
  return toApi(row);
}

export function listPromises(
  ctx: AppContext,
  tenant: Tenant,
  query: PromiseListQuery,
): Promise<Page<PromiseToPay>> {
  return paginate(
    query,
    'promise',
    (limit, afterId) =>
      repo.list(
        ctx.db,
        tenant,
        { limit, status: query.status, trackId: query.trackId, customerId: query.customerId },
        afterId,
      ),
    toApi,
  );
}

/** `POST /promises/{id}/cancel`: an open promise is cancelled (chasing resumes, with no reminder of its own). */
export async function cancelPromise(ctx: AppContext, tenant: Tenant, id: string): Promise<PromiseToPay> {
  return inTransaction(ctx, tenant, async (trx) => {
    const now = tenant.clock.now().toISOString();
    const cancelled = await repo.resolve(trx, tenant, id, 'cancelled', now);
    if (!cancelled) {
      const row = await repo.findById(trx, tenant, id);
      if (!row) throw notFound('promise', id);
      throw invalidState('promise', row.status, 'cancel');
    }
    await recordEvent(trx, tenant, 'promise.cancelled', toApi(cancelled));
    return toApi(cancelled);
  });
}

/**
 * Whether a promise is kept now: payments recorded on its plan since it was made (not reversed) reach its amount,
 * or what it covers (the plan's balance; its obligation's amount) is paid off.
 */
async function isKept(db: DbOrTrx, tenant: Tenant, promise: PromisesTable): Promise<boolean> {
  // Money that came after the end of the date (before the sweep saw it) does not keep it.
  const paid = await paidOnPlanSince(db, tenant, promise.track_id, promise.created_at, promise.due_at);
  if (paid >= promise.amount) return true;
  if (promise.obligation_id) {
    const obligation = await findObligation(db, tenant, promise.obligation_id);
    return obligation !== undefined && obligation.amount_paid >= obligation.amount;
  }
  const plan = await findTrack(db, tenant, promise.track_id);
  return plan !== undefined && plan.balance === 0;
}

async function markKept(trx: DbOrTrx, tenant: Tenant, promise: PromisesTable): Promise<boolean> {
  const kept = await repo.resolve(trx, tenant, promise.id, 'kept', tenant.clock.now().toISOString());
  if (kept) await recordEvent(trx, tenant, 'promise.kept', toApi(kept));
  return kept !== undefined;
}

/** The plan's open promise becomes kept when money on the plan has now kept it; whether it did. */
export async function keepIfPaid(trx: DbOrTrx, tenant: Tenant, trackId: string): Promise<boolean> {
  const open = await repo.openOfTrack(trx, tenant, trackId);
  if (!open || !(await isKept(trx, tenant, open))) return false;
  return markKept(trx, tenant, open);
}

/**
 * A promise whose time ran out (its due_at passed on the tenant clock): kept when the money came, else broken,
 * with one reminder saying so (the schedule's stages go on as they would have). Attempts it held run again on
 * the run sweep's next pass. Emits `promise.kept` or `promise.broken`; whether it changed.
 */
export async function settleFallenDue(ctx: AppContext, tenant: Tenant, id: string): Promise<boolean> {
  return inTransaction(ctx, tenant, async (trx) => {
    const promise = await repo.findById(trx, tenant, id);
    if (promise?.status !== 'open') return false;
    if (await isKept(trx, tenant, promise)) return markKept(trx, tenant, promise);
    // Broken at the end of its date, however late the sweep came.
    const broken = await repo.resolve(trx, tenant, id, 'broken', promise.due_at);
    if (!broken) return false;
    await recordEvent(trx, tenant, 'promise.broken', toApi(broken));
    await remindOfBrokenPromise(trx, tenant, {
      customerId: broken.customer_id,
      trackId: broken.track_id,
      obligationId: broken.obligation_id,
      amount: broken.amount,
      currency: broken.currency,
      date: broken.date,
    });
    return true;
  });
}
