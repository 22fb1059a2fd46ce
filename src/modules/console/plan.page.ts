import type { FastifyReply } from 'fastify';
import { localDate } from '../../lib/calendar.js';
import type { LedgerEntry } from '../ledger/ledger.schemas.js';
import type { ApiError } from './console.api.js';
import { day, esc, formStart, money, notice, pager, status, table, when } from './console.html.js';
import { sendPage } from './console.layout.js';
import type { ConsoleForm, Visit } from './console.visit.js';
import { DISPUTE_LABELS, type Dispute, disputesSection } from './plans.disputes-section.js';
import { obligationsTable } from './plans.obligations-section.js';
import {
  backTo,
  customerHref,
  type List,
  link,
  namesOf,
  type Obligation,
  oneLine,
  PAYMENT_METHOD_LABELS,
  type Payment,
  type Plan,
  paymentHref,
  planHref,
  problemWith,
  recordRefused,
  type Schedule,
  words,
} from './plans.parts.js';
import { PROMISE_LABELS, type PromiseToPay, promisesSection } from './plans.promises-section.js';
import { methodLabel, ruleInWords, SCHEDULE_LABELS, scheduleFields } from './plans.schedule-form.js';
import { settleSection, WRITE_OFF_LABELS, writeOffToReverse } from './plans.settle-section.js';

/**
 * A plan's page: its figures and facts, its collection schedules with the buttons of the actions each allows, the
 * form that adds a schedule, its obligations and its latest payments.
 */

const MESSAGES: Readonly<Record<string, string>> = {
  created: 'The plan was created.',
  created_with_schedule: 'The plan and its collection schedule were created.',
  schedule_added: 'The collection schedule was added.',
  activated: 'The schedule is active.',
  paused: 'The schedule is paused: no obligations are added until you resume it.',
  resumed: 'The schedule is active again.',
  cancelled: 'The schedule was cancelled, with its open obligations.',
  generated: 'The obligations were added.',
  synced: "The schedule was re-synced with the plan's balance.",
  promise_recorded: 'The promise to pay was recorded: reminders and automatic debits wait until its date.',
  promise_cancelled: 'The promise to pay was cancelled.',
  dispute_opened:
    'The dispute was opened: reminders, automatic debits and late fees wait until it is resolved.',
  dispute_rejected: 'The dispute was rejected: chasing resumes.',
  dispute_accepted: 'The dispute was accepted.',
  written_off: 'The write-off was recorded.',
  write_off_reversed: 'The write-off was reversed: its amount is owed again.',
  fee_waived: 'The late fee was waived.',
  settled: 'The settlement payment was recorded: the plan is settled.',
};

/** Which schedule actions each status allows (as the API does), in the order the buttons show. */
export const ACTIONS: readonly { action: string; label: string; from: readonly Schedule['status'][] }[] = [
  { action: 'activate', label: 'Activate', from: ['draft'] },
  { action: 'pause', label: 'Pause', from: ['active'] },
  { action: 'resume', label: 'Resume', from: ['paused'] },
  { action: 'sync_payment_plan', label: 'Re-sync with the plan…', from: ['active', 'paused', 'completed'] },
  { action: 'generate_obligations', label: 'Add obligations ahead…', from: ['active', 'paused'] },
  { action: 'cancel', label: 'Cancel schedule…', from: ['draft', 'active', 'paused'] },
];

export const notFoundPage = (reply: FastifyReply, visit: Visit) =>
  sendPage(
    reply,
    visit,
    {
      title: 'Plan not found',
      section: 'plans',
      body: backTo('There is no such plan in this workspace.', '/console/plans', 'Back to the plans'),
    },
    404,
  );

export interface PlanState {
  done?: string;
  cursor?: string;
  status?: number;
  /** A refusal to show at the top of the page. */
  problem?: ApiError;
  /** Words before the page (a plan made whose schedule was refused). */
  lead?: string;
  /** What was typed into the schedule form, and its errors, when it was refused. */
  scheduleValues?: ConsoleForm;
  scheduleErrors?: Record<string, string>;
  /** What was typed into the promise form, and its errors, when it was refused. */
  promiseValues?: ConsoleForm;
  promiseErrors?: Record<string, string>;
  /** What was typed into the dispute form, and its errors, when it was refused. */
  disputeValues?: ConsoleForm;
  disputeErrors?: Record<string, string>;
  /** What was typed into the write-off form, and its errors, when it was refused. */
  writeOffValues?: ConsoleForm;
  writeOffErrors?: Record<string, string>;
}

function scheduleCard(visit: Visit, plan: Plan, schedule: Schedule, index: number): string {
  const zone = visit.workspace.timeZone;
  const actions = visit.can('edit_records')
    ? ACTIONS.filter((a) => a.from.includes(schedule.status))
        .map(
          (a) =>
            `${formStart(visit, `${planHref(plan.id)}/schedules/${encodeURIComponent(schedule.id)}`, {
              className: 'inline',
              label: `${a.label.replace('…', '')}: schedule ${index + 1}`,
            })}<input type="hidden" name="action" value="${a.action}"><button type="submit" class="${
              a.action === 'cancel' ? 'danger' : 'secondary'
            }">${esc(a.label)}</button></form>`,
        )
        .join('\n')
    : '';
  return `<section class="card" aria-labelledby="schedule-${index}">
<h3 id="schedule-${index}">Schedule ${index + 1}: ${ruleInWords(schedule)} ${status(schedule.status)}</h3>
<dl class="facts">
<dt>Each obligation</dt><dd>${money(schedule.fixed_amount, schedule.currency)}</dd>
<dt>Collection</dt><dd>${esc(methodLabel(schedule.collection_method))}</dd>
<dt>First due</dt><dd>${day(localDate(schedule.start_date, zone))}</dd>
${schedule.end_date ? `<dt>Ends</dt><dd>${day(localDate(schedule.end_date, zone))}</dd>` : ''}
<dt>Next due</dt><dd>${schedule.next_due_date ? day(schedule.next_due_date) : 'Nothing open'}</dd>
</dl>
${actions ? `<div class="actions">${actions}</div>` : ''}
</section>`;
}

export async function planPage(reply: FastifyReply, visit: Visit, id: string, state: PlanState = {}) {
  const found = await visit.api.get<Plan>(`/tracks/${encodeURIComponent(id)}`);
  if (!found.ok) return recordRefused(reply, visit, found, { title: 'Plan', section: 'plans' }, notFoundPage);
  const plan = found.data;
  const [schedules, obligations, overdue, payments, customer, promises, disputes, ledger] = await Promise.all(
    [
      visit.api.get<List<Schedule>>('/collection-schedules', { target_id: plan.id, limit: 100 }),
      visit.api.get<List<Obligation>>('/obligations', {
        track_id: plan.id,
        limit: 100,
        cursor: state.cursor,
      }),
      visit.api.get<List<Obligation>>('/obligations', { track_id: plan.id, status: 'overdue', limit: 100 }),
      visit.api.get<List<Payment>>(`/tracks/${encodeURIComponent(plan.id)}/payments`, { limit: 10 }),
      namesOf(visit, 'customers', [plan.customerId]),
      visit.api.get<List<PromiseToPay>>('/promises', { trackId: plan.id, limit: 20 }),
      visit.api.get<List<Dispute>>('/disputes', { trackId: plan.id, limit: 20 }),
      // Only owners and admins reverse a write-off: only they need to know whether the last money change is one.
      visit.can('edit_records')
        ? visit.api.get<List<LedgerEntry>>(`/tracks/${encodeURIComponent(plan.id)}/ledger`, { limit: 50 })
        : undefined,
    ],
  );
  const cur = plan.currency;
  const overdueNow = overdue.ok ? overdue.data.items.reduce((sum, o) => sum + o.amount_due, 0) : 0;
  const figures = `<div class="grid figures">
<div class="figure"><div class="label">Amount</div><div class="value">${money(plan.amount, cur)}</div></div>
<div class="figure"><div class="label">Paid</div><div class="value">${money(plan.amountPaid, cur)}</div></div>
<div class="figure"><div class="label">Balance</div><div class="value">${money(plan.balance, cur)}</div></div>
<div class="figure"><div class="label">Overdue now</div><div class="value">${money(overdueNow, cur)}</div></div>
</div>`;
  const record =
    visit.can('record_payment') && plan.status === 'active'
      ? `<a class="button" href="/console/payments/new?track_id=${encodeURIComponent(plan.id)}">Record a payment</a>`
      : '';
  const facts = `<section class="card" aria-label="The plan">
<dl class="facts">
<dt>Customer</dt><dd>${link(customerHref(plan.customerId), customer.get(plan.customerId), plan.customerId)}</dd>
<dt>Status</dt><dd>${status(plan.status)}${overdueNow > 0 ? ` ${status('overdue')}` : ''}</dd>
<dt>Currency</dt><dd>${esc(cur)}</dd>
${plan.installments ? `<dt>Instalments</dt><dd>${esc(plan.installments)}</dd>` : ''}
${plan.dueDate ? `<dt>Final due date</dt><dd>${day(plan.dueDate)}</dd>` : ''}
<dt>Created</dt><dd>${when(visit, plan.createdAt)}</dd>
<dt>Reference</dt><dd><code>${esc(plan.id)}</code></dd>
</dl>
<div class="actions">${record}<a class="button secondary" href="/console/payments?track_id=${encodeURIComponent(plan.id)}">All payments of this plan</a></div>
</section>`;

  const scheduleList = schedules.ok ? schedules.data.items : [];
  const cards = scheduleList.map((s, i) => scheduleCard(visit, plan, s, i)).join('\n');
  const open = scheduleList.some(
    (s) => s.status === 'active' || s.status === 'paused' || s.status === 'draft',
  );
  const addForm =
    visit.can('edit_records') && plan.status === 'active'
      ? `<details class="card"${state.scheduleValues || !open ? ' open' : ''}><summary>Add a collection schedule</summary>
${formStart(visit, `${planHref(plan.id)}/schedules`, { label: 'Add a collection schedule' })}
${scheduleFields(visit, state.scheduleValues ?? {}, state.scheduleErrors ?? {}, { optional: false, currency: cur })}
<div class="actions"><button type="submit">Add schedule</button></div>
</form></details>`
      : '';
  const obligationRows = obligations.ok ? obligations.data.items : [];
  const obligationTable = obligationsTable(visit, plan.id, obligationRows);
  const paymentRows = payments.ok ? payments.data.items : [];
  const paymentTable = table(
    'Latest payments',
    [
      { head: 'Paid', cell: (p: Payment) => oneLine(when(visit, p.paidAt)) },
      {
        head: 'Amount',
        numeric: true,
        cell: (p: Payment) => `<a href="${esc(paymentHref(p.id))}">${money(p.amount, p.currency)}</a>`,
      },
      { head: 'Method', cell: (p: Payment) => esc(words(p.method, PAYMENT_METHOD_LABELS)) },
      { head: 'Reference', cell: (p: Payment) => esc(p.reference ?? '') },
      { head: 'Status', cell: (p: Payment) => status(p.status) },
    ],
    paymentRows,
    'No payments yet.',
  );
  const promiseSection = promisesSection(visit, plan, promises.ok ? promises.data.items : [], {
    ...(state.promiseValues ? { values: state.promiseValues } : {}),
    ...(state.promiseErrors ? { errors: state.promiseErrors } : {}),
  });
  const disputeSection = disputesSection(
    visit,
    plan,
    disputes.ok ? disputes.data.items : [],
    obligationRows,
    {
      ...(state.disputeValues ? { values: state.disputeValues } : {}),
      ...(state.disputeErrors ? { errors: state.disputeErrors } : {}),
    },
  );
  const settle = settleSection(visit, plan, ledger?.ok ? writeOffToReverse(ledger.data.items) : undefined, {
    ...(state.writeOffValues ? { values: state.writeOffValues } : {}),
    ...(state.writeOffErrors ? { errors: state.writeOffErrors } : {}),
  });
  const problems = [schedules, obligations, payments, promises, disputes]
    .map((a) => (a.ok ? '' : problemWith(a.error, {})))
    .join('');
  const body = `${state.lead ?? ''}${notice(state.done, MESSAGES)}${
    state.problem && !state.lead
      ? problemWith(state.problem, {
          ...SCHEDULE_LABELS,
          ...PROMISE_LABELS,
          ...DISPUTE_LABELS,
          ...WRITE_OFF_LABELS,
        })
      : ''
  }${problems}
${figures}
${facts}
<h2>Collection schedules</h2>
${cards || '<p class="note">No collection schedule.</p>'}
${addForm}
${promiseSection}
${disputeSection}
<h2>Obligations</h2>
${obligationTable}
${obligations.ok ? pager(planHref(plan.id), {}, obligations.data.next_cursor) : ''}
${settle}
<h2>Payments</h2>
${paymentTable}`;
  return sendPage(reply, visit, { title: plan.title, section: 'plans', body }, state.status ?? 200);
}
