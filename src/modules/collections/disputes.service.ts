import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Trx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { AppError, fieldError, invalidState, notFound } from '../../lib/app-error.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import { adjustPlanAmount, reversePayment, writeOffPlan } from '../../money/index.js';
import { recordEvent } from '../../outbox/outbox.js';
import { findPayment } from '../payments/index.js';
import { findObligation, OPEN_OBLIGATION } from '../schedules/index.js';
import { customerOfTrack, findTrack } from '../tracks/index.js';
import { findTrackForUpdate } from '../tracks/tracks.service.js';
import type { DisputesTable } from './collections.table.js';
import { toApi } from './disputes.mapper.js';
import * as repo from './disputes.repository.js';
import type {
  Dispute,
  DisputeAction,
  DisputeCreate,
  DisputeListQuery,
  DisputeResolve,
} from './disputes.schemas.js';

const TARGET_FIELDS = ['trackId', 'obligationId', 'paymentId'] as const;

/** The one target named: a 422 naming the field when none or several are. */
function targetOf(input: DisputeCreate): { field: (typeof TARGET_FIELDS)[number]; id: string } {
  const named = TARGET_FIELDS.filter((f) => input[f] !== undefined);
  const [field, ...others] = named;
  if (!field) throw fieldError({ trackId: 'exactly one of trackId, obligationId and paymentId is required' });
  if (others.length > 0) {
    throw fieldError(
      Object.fromEntries(
        others.map((f) => [f, `only one of trackId, obligationId and paymentId may be given`]),
      ),
    );
  }
  return { field, id: input[field] as string };
}

function alreadyOpen(open: DisputesTable): AppError {
  return new AppError('invalid_state', `Dispute ${open.id} is already open on this; resolve it first.`, {
    status: 'open',
    action: 'dispute',
    disputeId: open.id,
  });
}

/** What the dispute concerns: its plan (when it has one) and customer, checked disputable. */
async function concerns(trx: Trx, tenant: TenantRef, target: ReturnType<typeof targetOf>) {
  if (target.field === 'trackId') {
    const track = await findTrack(trx, tenant, target.id);
    if (!track) throw notFound('track', target.id, 'trackId');
    return { track_id: track.id, obligation_id: null, payment_id: null, customer_id: track.customer_id };
  }
  if (target.field === 'obligationId') {
    const obligation = await findObligation(trx, tenant, target.id);
    if (!obligation) throw notFound('obligation', target.id, 'obligationId');
    if (!OPEN_OBLIGATION.includes(obligation.status)) {
      throw invalidState('obligation', obligation.status, 'dispute');
    }
    const trackId = obligation.track_id;
    return {
      track_id: trackId,
      obligation_id: obligation.id,
      payment_id: null,
      customer_id: trackId ? ((await customerOfTrack(trx, trackId)) ?? null) : null,
    };
  }
  const payment = await findPayment(trx, tenant, target.id);
  if (!payment) throw notFound('payment', target.id, 'paymentId');
  if (payment.status === 'reversed') throw invalidState('payment', payment.status, 'dispute');
  return {
    track_id: payment.track_id,
    obligation_id: null,
    payment_id: payment.id,
    customer_id: payment.customer_id,
  };
}

/**
 * Opens a dispute on a plan, an obligation or a payment: while open, reminders, attempts and late fees on what
 * it covers are held back (`holds.ts`). One open dispute per target. Event `dispute.created`.
 */
export async function createDispute(ctx: AppContext, tenant: Tenant, input: DisputeCreate): Promise<Dispute> {
  const target = targetOf(input);
  try {
    return await inTransaction(ctx, tenant, async (trx) => {
      const about = await concerns(trx, tenant, target);
      const open = await repo.openOn(trx, tenant, target.id);
      if (open) throw alreadyOpen(open);
      const at = tenant.clock.now();
      const now = at.toISOString();
      const row: DisputesTable = {
        id: newId('dispute', at),
        workspace_id: tenant.workspaceId,
        mode: tenant.mode,
        ...about,
        reason: input.reason,
        note: input.note ?? null,
        status: 'open',
        resolution: null,
        resolution_note: null,
        created_at: now,
        resolved_at: null,
        updated_at: now,
      };
      await repo.insert(trx, row);
      const dispute = toApi(row);
      await recordEvent(trx, tenant, 'dispute.created', dispute);
      return dispute;
    });
  } catch (error) {
    // Two disputes on one target at once: the unique index of open ones lets one through.
    if (!isUniqueViolation(error)) throw error;
    const open = await repo.openOn(ctx.db, tenant, target.id);
    throw open ? alreadyOpen(open) : error;
  }
}

export async function getDispute(ctx: AppContext, tenant: TenantRef, id: string): Promise<Dispute> {
  const row = await repo.findById(ctx.db, tenant, id);
  if (!row) throw notFound('dispute', id);
  return toApi(row);
}

export function listDisputes(
  ctx: AppContext,
  tenant: TenantRef,
  query: DisputeListQuery,
): Promise<Page<Dispute>> {
  return paginate(
    query,
    'dispute',
    (limit, afterId) => repo.list(ctx.db, tenant, { ...query, limit }, afterId),
    toApi,
  );
}

/** Refuses an action that does not fit the outcome or the dispute, naming the field. */
function checkAction(dispute: DisputesTable, input: DisputeResolve): void {
  const action = input.action;
  if (!action) return;
  if (input.outcome === 'rejected') throw fieldError({ action: 'only an accepted dispute takes an action' });
  if (action.type === 'reverse' && dispute.payment_id === null) {
    throw fieldError({ 'action.type': 'reverse is for a dispute on a payment' });
  }
  if (action.type === 'reverse' && action.amount !== undefined) {
    throw fieldError({ 'action.amount': 'a reversal takes back the whole payment; give no amount' });
  }
  if (action.type !== 'reverse' && dispute.track_id === null) {
    throw fieldError({ 'action.type': `${action.type} needs a dispute that concerns a plan` });
  }
  if (action.type === 'adjust' && action.amount === undefined) {
    throw fieldError({ 'action.amount': 'required for adjust: how much to lower the plan by' });
  }
}

/** Does what an accepted dispute's action says, in the resolution's transaction; returns what was done. */
async function act(
  ctx: AppContext,
  trx: Trx,
  tenant: Tenant,
  dispute: DisputesTable,
  action: NonNullable<DisputeResolve['action']>,
  note: string | null,
): Promise<DisputeAction> {
  if (action.type === 'reverse') {
    const payment = await reversePayment(
      trx,
      tenant,
      dispute.payment_id as string,
      note ?? `dispute ${dispute.id}`,
    );
    return { type: 'reverse', amount: payment.amount, writeOffId: null, paymentId: payment.id };
  }
  const trackId = dispute.track_id as string;
  if (action.type === 'adjust') {
    const plan = await findTrackForUpdate(trx, ctx.dialect, tenant, trackId);
    if (!plan) throw notFound('track', trackId);
    if (plan.status === 'archived') throw invalidState('track', plan.status, 'adjust');
    const by = action.amount as number;
    if (by > plan.balance) {
      throw fieldError({ 'action.amount': `must be at most the plan's balance of ${plan.balance}` });
    }
    await adjustPlanAmount(trx, tenant, plan, plan.amount - by, null);
    return { type: 'adjust', amount: by, writeOffId: null, paymentId: null };
  }
  let amount = action.amount;
  if (amount === undefined && dispute.obligation_id !== null) {
    const obligation = await findObligation(trx, tenant, dispute.obligation_id);
    if (!obligation || !OPEN_OBLIGATION.includes(obligation.status)) {
      throw invalidState('obligation', obligation?.status ?? 'gone', 'write_off');
    }
    amount = obligation.amount - obligation.amount_paid;
  }
  const { writeOff } = await writeOffPlan(
    trx,
    tenant,
    trackId,
    {
      amount,
      reason: `dispute ${dispute.id}: ${dispute.reason}`,
      obligationId: dispute.obligation_id ?? undefined,
    },
    'action.amount',
  );
  return { type: 'write_off', amount: writeOff.amount, writeOffId: writeOff.id, paymentId: null };
}

/**
 * Resolves an open dispute: rejected (chasing resumes by itself, the holds being gone) or accepted, with the
 * action it takes (an adjustment, a write-off or a reversal) in the same transaction. Events `dispute.accepted`,
 * `dispute.rejected`.
 */
export async function resolveDispute(
  ctx: AppContext,
  tenant: Tenant,
  id: string,
  input: DisputeResolve,
): Promise<Dispute> {
  return inTransaction(ctx, tenant, async (trx) => {
    const current = await repo.findById(trx, tenant, id);
    if (!current) throw notFound('dispute', id);
    checkAction(current, input);
    const now = tenant.clock.now().toISOString();
    const note = input.note ?? null;
    const resolved = await repo.resolve(trx, tenant, id, {
      status: input.outcome,
      resolution_note: note,
      resolved_at: now,
      updated_at: now,
    });
    if (!resolved) {
      const latest = await repo.findById(trx, tenant, id);
      throw invalidState('dispute', latest?.status ?? current.status, 'resolve');
    }
    let row = resolved;
    if (input.outcome === 'accepted' && input.action) {
      const done = await act(ctx, trx, tenant, resolved, input.action, note);
      row = { ...resolved, resolution: JSON.stringify(done) };
      await repo.setResolution(trx, id, row.resolution as string);
    }
    const dispute = toApi(row);
    await recordEvent(
      trx,
      tenant,
      input.outcome === 'accepted' ? 'dispute.accepted' : 'dispute.rejected',
      dispute,
    );
    return dispute;
  });
}
