import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { day, esc, formStart, money, status, table } from './console.html.js';
import { sendPage } from './console.layout.js';
import type { Visit } from './console.visit.js';
import {
  type List,
  link,
  type Obligation,
  oneLine,
  type Plan,
  planHref,
  type Schedule,
} from './plans.parts.js';
import { ruleInWords } from './plans.schedule-form.js';

/**
 * What a schedule action would do, shown before it is done: a re-sync or a generation as a dry run (its open
 * obligations before and after), a cancellation with the obligations it cancels.
 */

const OPEN = ['pending', 'partially_paid', 'overdue'];

interface Change {
  id: string | null;
  due_date: string;
  amount: number;
  previous_amount: number | null;
  status: string;
}

export interface ActionResult extends Schedule {
  changes?: {
    dry_run: boolean;
    created: Change[];
    updated: Change[];
    cancelled: Change[];
    owed_after: number;
  };
}

/** What a dry run found, as a fingerprint: the confirmation applies only what the person saw. */
export const fingerprint = (changes: ActionResult['changes']) =>
  createHash('sha256')
    .update(
      JSON.stringify(
        changes
          ? [changes.created, changes.updated, changes.cancelled, changes.owed_after].map((part) =>
              Array.isArray(part) ? part.map((c) => [c.id, c.due_date, c.amount, c.status]) : part,
            )
          : null,
      ),
    )
    .digest('base64url');

interface Row {
  due: string;
  before: string;
  after: string;
  paid: string;
  change: string;
}

/** The schedule's open obligations before the action and after it, one row each, by due date. */
function beforeAfter(
  open: readonly Obligation[],
  changes: NonNullable<ActionResult['changes']>,
  currency: string,
) {
  const updated = new Map(changes.updated.map((c) => [c.id, c]));
  const cancelled = new Map(changes.cancelled.map((c) => [c.id, c]));
  const none = '<span aria-hidden="true">—</span><span class="visually-hidden">none</span>';
  const rows: (Row & { date: string })[] = open.map((o) => {
    const u = updated.get(o.id);
    const c = cancelled.get(o.id);
    return {
      date: o.due_date,
      due: day(o.due_date),
      before: money(o.amount, currency),
      after: c ? none : money(u ? u.amount : o.amount, currency),
      paid: money(o.amount_paid, currency),
      change: c ? 'cancelled' : u ? (u.amount > o.amount ? 'goes up' : 'goes down') : 'unchanged',
    };
  });
  const seen = new Set(open.map((o) => o.id));
  for (const u of changes.updated.filter((c) => c.id && !seen.has(c.id)))
    rows.push({
      date: u.due_date,
      due: day(u.due_date),
      before: money(u.previous_amount ?? u.amount, currency),
      after: money(u.amount, currency),
      paid: '',
      change: 'amount changes',
    });
  for (const c of changes.cancelled.filter((c) => c.id && !seen.has(c.id)))
    rows.push({
      date: c.due_date,
      due: day(c.due_date),
      before: money(c.amount, currency),
      after: none,
      paid: '',
      change: 'cancelled',
    });
  for (const n of changes.created)
    rows.push({
      date: n.due_date,
      due: day(n.due_date),
      before: none,
      after: money(n.amount, currency),
      paid: money(0, currency),
      change: 'new',
    });
  rows.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return rows;
}

async function openObligations(visit: Visit, scheduleId: string) {
  const list = await visit.api.get<List<Obligation>>('/obligations', { schedule_id: scheduleId, limit: 100 });
  return list.ok ? list.data.items.filter((o) => OPEN.includes(o.status)) : [];
}

/** The dry run of a re-sync or a generation, as a table of before and after, with the button that does it. */
export async function previewPage(
  reply: FastifyReply,
  visit: Visit,
  plan: Plan,
  schedule: Schedule,
  action: 'sync_payment_plan' | 'generate_obligations',
  result: ActionResult,
  changed = false,
) {
  const changes = result.changes ?? { dry_run: true, created: [], updated: [], cancelled: [], owed_after: 0 };
  const open = await openObligations(visit, schedule.id);
  const owedNow = open.reduce((sum, o) => sum + o.amount_due, 0);
  const rows = beforeAfter(open, changes, plan.currency);
  const nothing = changes.created.length + changes.updated.length + changes.cancelled.length === 0;
  const what =
    action === 'sync_payment_plan'
      ? "Re-syncing spreads the plan's balance over the schedule's open obligations again."
      : 'Adding obligations ahead extends the schedule to its horizon.';
  const title =
    action === 'sync_payment_plan' ? 'Re-sync the schedule with the plan?' : 'Add obligations ahead?';
  const body = `${
    changed
      ? '<div class="problem" role="alert"><strong>The plan changed since the preview you confirmed: check the changes again.</strong></div>'
      : ''
  }<p>${esc(what)} This is a preview: <strong>nothing has changed yet.</strong></p>
<p>Plan: ${link(planHref(plan.id), plan.title, plan.id)}, balance ${money(plan.balance, plan.currency)}.</p>
<div class="grid figures">
<div class="figure"><div class="label">Open obligations ask now</div><div class="value">${money(owedNow, plan.currency)}</div></div>
<div class="figure"><div class="label">They would ask after</div><div class="value">${money(changes.owed_after, plan.currency)}</div></div>
</div>
${table(
  'Open obligations before and after',
  [
    { head: 'Due', cell: (r: Row) => oneLine(r.due) },
    { head: 'Before', numeric: true, cell: (r: Row) => r.before },
    { head: 'After', numeric: true, cell: (r: Row) => r.after },
    { head: 'Paid so far', numeric: true, cell: (r: Row) => r.paid },
    { head: 'Change', cell: (r: Row) => esc(r.change) },
  ],
  rows,
  'The schedule has no open obligations.',
)}
${
  nothing
    ? `<p class="notice" role="status">Nothing would change.</p><p><a href="${esc(planHref(plan.id))}">Back to the plan</a></p>`
    : `${formStart(visit, `${planHref(plan.id)}/schedules/${encodeURIComponent(schedule.id)}`, {
        label: 'Confirm',
      })}<input type="hidden" name="action" value="${action}"><input type="hidden" name="confirmed" value="yes"><input type="hidden" name="preview" value="${fingerprint(changes)}">
<div class="actions"><button type="submit">${action === 'sync_payment_plan' ? 'Re-sync now' : 'Add them now'}</button><a class="button secondary" href="${esc(planHref(plan.id))}">Back without changing anything</a></div></form>`
}`;
  return sendPage(reply, visit, { title, section: 'plans', body }, changed ? 409 : 200);
}

export async function cancelPage(reply: FastifyReply, visit: Visit, plan: Plan, schedule: Schedule) {
  const open = await openObligations(visit, schedule.id);
  const body = `<p>Schedule of ${link(planHref(plan.id), plan.title, plan.id)}: ${ruleInWords(schedule)}.
Cancelling it also cancels its open obligations below; the plan's balance stays as it is. This cannot be undone.</p>
${table(
  'Open obligations that would be cancelled',
  [
    { head: 'Due', cell: (o: Obligation) => oneLine(day(o.due_date)) },
    { head: 'Amount', numeric: true, cell: (o: Obligation) => money(o.amount, o.currency) },
    { head: 'Still due', numeric: true, cell: (o: Obligation) => money(o.amount_due, o.currency) },
    { head: 'Status', cell: (o: Obligation) => status(o.status) },
  ],
  open,
  'It has no open obligations.',
)}
${formStart(visit, `${planHref(plan.id)}/schedules/${encodeURIComponent(schedule.id)}`, { label: 'Confirm' })}<input type="hidden" name="action" value="cancel"><input type="hidden" name="confirmed" value="yes">
<div class="actions"><button type="submit" class="danger">Cancel the schedule</button><a class="button secondary" href="${esc(planHref(plan.id))}">Keep it</a></div></form>`;
  return sendPage(reply, visit, { title: 'Cancel this schedule?', section: 'plans', body });
}
