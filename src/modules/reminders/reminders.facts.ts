import type { DbOrTrx } from '../../db/schema.js';
import { dateInWords } from '../../lib/calendar.js';
import { briefDayInWords } from '../../lib/in-words.js';
import { formatMoney } from '../../lib/money.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { VirtualAccount } from '../../ports/payment-providers.js';
import { isBeingCharged } from '../attempts/index.js';
import { disputeOnPlan, holdOnObligation } from '../collections/holds.js';
import { type OpenPromise, openPromiseCovering } from '../collections/promises.open.js';
import { type CustomersTable, customerRow } from '../customers/customers.service.js';
import {
  findObligation,
  findScheduleRow,
  type ObligationsTable,
  type SchedulesTable,
} from '../schedules/index.js';
import { findTrack, type TracksTable } from '../tracks/index.js';
import { type WorkspacesTable, workspaceRow } from '../workspaces/workspaces.service.js';
import type { SkipReason } from './reminders.table.js';
import type { ReminderFacts } from './reminders.templates.js';

/** Everything a reminder is about, as it stands now. */
export interface ReminderSubject {
  workspace: WorkspacesTable;
  customer: CustomersTable;
  track: TracksTable | undefined;
  obligation: ObligationsTable | undefined;
  schedule: SchedulesTable | undefined;
  /** The open promise to pay that covers it, which its text mentions. */
  promise: OpenPromise | undefined;
}

export async function loadSubject(
  db: DbOrTrx,
  tenant: TenantRef,
  ids: { customerId: string; trackId: string | null; obligationId: string | null },
): Promise<ReminderSubject> {
  const workspace = await workspaceRow(db, tenant.workspaceId);
  const customer = await customerRow(db, tenant, ids.customerId);
  const obligation = ids.obligationId ? await findObligation(db, tenant, ids.obligationId) : undefined;
  const trackId = ids.trackId ?? obligation?.track_id ?? null;
  const track = trackId ? await findTrack(db, tenant, trackId) : undefined;
  const schedule = obligation ? await findScheduleRow(db, tenant, obligation.schedule_id) : undefined;
  const promise = await openPromiseCovering(db, tenant, { trackId, obligationId: obligation?.id ?? null });
  return { workspace, customer, track, obligation, schedule, promise };
}

/**
 * Why a reminder must not go out now, from the state of the money: the obligation (or, for a templated plan
 * reminder, the plan) is paid, cancelled, written off or waived, the schedule is paused or cancelled, its
 * collection is being charged, or it is disputed; an automatic one (of a schedule's stages) also waits while a
 * promise to pay covers it. Null when it may go.
 */
export async function skipReasonOf(
  db: DbOrTrx,
  subject: ReminderSubject,
  reminder: { templated: boolean; automatic: boolean },
): Promise<SkipReason | null> {
  const { obligation, schedule, track } = subject;
  if (obligation) {
    if (obligation.status === 'paid') return 'obligation_paid';
    if (obligation.status === 'cancelled') return 'obligation_cancelled';
    if (obligation.status === 'written_off') return 'obligation_written_off';
    if (obligation.status === 'waived') return 'obligation_waived';
    if (schedule?.status === 'paused') return 'schedule_paused';
    if (schedule?.status === 'cancelled') return 'schedule_cancelled';
    if (await isBeingCharged(db, obligation.id)) return 'attempt_processing';
    const tenant = { workspaceId: obligation.workspace_id, mode: obligation.mode };
    const hold = await holdOnObligation(db, tenant, obligation);
    if (hold === 'dispute_open' || (hold === 'promise_open' && reminder.automatic)) return hold;
    return null;
  }
  if (reminder.templated && track?.status === 'completed') return 'plan_paid';
  if (track && (await disputeOnPlan(db, { workspaceId: track.workspace_id, mode: track.mode }, track.id))) {
    return 'dispute_open';
  }
  return null;
}

/** Why a reminder is withdrawn: the business archived its customer or its plan. */
export function withdrawnReasonOf(subject: ReminderSubject): 'customer_archived' | 'plan_archived' | null {
  if (subject.customer.status === 'archived') return 'customer_archived';
  if (subject.track?.status === 'archived') return 'plan_archived';
  return null;
}

function payBy(subject: ReminderSubject): string | null {
  if (subject.obligation?.checkout_url) return `Pay here: ${subject.obligation.checkout_url}`;
  if (subject.schedule?.virtual_account) {
    const account = JSON.parse(subject.schedule.virtual_account) as VirtualAccount;
    return `Pay by transfer to ${account.bank}, account ${account.number} (${account.name}).`;
  }
  return null;
}

/** The template's facts: what is owed now, formatted for its currency, and the due date. */
export function factsOf(subject: ReminderSubject): ReminderFacts {
  const { obligation, track, workspace, promise } = subject;
  const amount = obligation
    ? formatMoney(obligation.amount - obligation.amount_paid, obligation.currency)
    : track
      ? formatMoney(track.balance, track.currency)
      : null;
  // Both are calendar dates (YYYY-MM-DD) already: no zone applies to them.
  const dueDate = obligation ? obligation.due_date : (track?.due_date ?? null);
  return {
    customerName: subject.customer.name,
    business: workspace.name,
    amount,
    dueDate: dueDate ? dateInWords(dueDate) : null,
    planTitle: track?.title ?? null,
    payBy: payBy(subject),
    promised: promise
      ? `${formatMoney(promise.amount, promise.currency)} by ${briefDayInWords(promise.date)}`
      : null,
  };
}
