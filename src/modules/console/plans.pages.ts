import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { localDate } from '../../lib/calendar.js';
import { isCurrency } from '../../lib/money.js';
import { readAmount } from './amount-input.js';
import type { ApiError } from './console.api.js';
import {
  day,
  esc,
  field,
  formStart,
  idempotencyKeyOf,
  money,
  notice,
  pager,
  status,
  table,
  when,
} from './console.html.js';
import { sendPage } from './console.layout.js';
import { type ConsoleForm, type Visit, visitIn } from './console.visit.js';
import {
  backTo,
  customerHref,
  fieldErrors,
  formError,
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
  readDate,
  renameFields,
  type Schedule,
  words,
} from './plans.parts.js';
import {
  methodLabel,
  readSchedule,
  ruleInWords,
  SCHEDULE_FIELD_NAMES,
  SCHEDULE_LABELS,
  scheduleFields,
} from './plans.schedule-form.js';

/**
 * Plans: the list (all, overdue, active, completed, archived), a plan's page with its schedules, obligations and
 * payments, the schedule actions (re-sync and generation shown as a dry run first, cancel confirmed first), and
 * the form that creates a plan with its schedule. Everything is read and changed through the API.
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
};

const SHOW = [
  { value: '', label: 'All plans' },
  { value: 'overdue', label: 'Overdue' },
  { value: 'active', label: 'Active' },
  { value: 'completed', label: 'Completed' },
  { value: 'archived', label: 'Archived' },
] as const;

const PLAN_FIELD_NAMES: Readonly<Record<string, string>> = { customerId: 'customer_id', dueDate: 'due_date' };
const PLAN_LABELS: Readonly<Record<string, string>> = {
  customer_id: 'Customer',
  title: 'Title',
  amount: 'Amount',
  currency: 'Currency',
  due_date: 'Final due date',
  ...SCHEDULE_LABELS,
};

/** Which schedule actions each status allows (as the API does), in the order the buttons show. */
const ACTIONS: readonly { action: string; label: string; from: readonly Schedule['status'][] }[] = [
  { action: 'activate', label: 'Activate', from: ['draft'] },
  { action: 'pause', label: 'Pause', from: ['active'] },
  { action: 'resume', label: 'Resume', from: ['paused'] },
  { action: 'sync_payment_plan', label: 'Re-sync with the plan…', from: ['active', 'paused', 'completed'] },
  { action: 'generate_obligations', label: 'Add obligations ahead…', from: ['active', 'paused'] },
  { action: 'cancel', label: 'Cancel schedule…', from: ['draft', 'active', 'paused'] },
];
const DONE_OF: Readonly<Record<string, string>> = {
  activate: 'activated',
  pause: 'paused',
  resume: 'resumed',
  cancel: 'cancelled',
  generate_obligations: 'generated',
  sync_payment_plan: 'synced',
};
const OPEN = ['pending', 'partially_paid', 'overdue'];

const one = (value: unknown) => (typeof value === 'string' ? value : undefined);
const trimmed = (value: string | undefined) => (value ?? '').trim();

const notFoundPage = (reply: FastifyReply, visit: Visit) =>
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

const refusedPage = (reply: FastifyReply, visit: Visit, text: string, back = '/console/plans') =>
  sendPage(reply, visit, { title: 'Not allowed', section: 'plans', body: backTo(text, back, 'Back') }, 403);

const EDIT_REFUSED = 'Only owners and admins create plans and change schedules.';

// ---------------------------------------------------------------------------------------------- the list

async function listPage(reply: FastifyReply, visit: Visit, query: Record<string, unknown>) {
  const show = SHOW.find((s) => s.value === one(query.show))?.value ?? '';
  const customerId = trimmed(one(query.customer_id)) || undefined;
  const answer = await visit.api.get<List<Plan>>('/tracks', {
    status: show === 'active' || show === 'completed' || show === 'archived' ? show : undefined,
    overdue: show === 'overdue' ? true : undefined,
    customerId,
    cursor: one(query.cursor),
    limit: 20,
  });
  const plans = answer.ok ? answer.data.items : [];
  const [names, customer] = await Promise.all([
    namesOf(
      visit,
      'customers',
      plans.map((p) => p.customerId),
    ),
    customerId ? namesOf(visit, 'customers', [customerId]) : Promise.resolve(new Map<string, string>()),
  ]);
  const filters = `<nav aria-label="Filter plans"><ul class="tabs">${SHOW.map((s) => {
    const search = new URLSearchParams();
    if (s.value) search.set('show', s.value);
    if (customerId) search.set('customer_id', customerId);
    const href = `/console/plans${search.size ? `?${search}` : ''}`;
    return `<li><a href="${esc(href)}"${s.value === show ? ' aria-current="page"' : ''}>${esc(s.label)}</a></li>`;
  }).join('')}</ul></nav>`;
  const of = customerId
    ? `<p>Plans of ${link(customerHref(customerId), customer.get(customerId), customerId)}. <a href="/console/plans${
        show ? `?show=${show}` : ''
      }">Plans of every customer</a></p>`
    : '';
  const create = visit.can('edit_records')
    ? `<div class="actions"><a class="button" href="/console/plans/new${
        customerId ? `?customer_id=${encodeURIComponent(customerId)}` : ''
      }">New plan</a></div>`
    : '';
  const caption = show === 'overdue' ? 'Plans with money overdue now' : `${words(show || 'all')} plans`;
  const rows = table(
    caption.charAt(0).toUpperCase() + caption.slice(1),
    [
      { head: 'Plan', cell: (p: Plan) => link(planHref(p.id), p.title, p.id) },
      {
        head: 'Customer',
        cell: (p: Plan) => link(customerHref(p.customerId), names.get(p.customerId), p.customerId),
      },
      { head: 'Balance', numeric: true, cell: (p: Plan) => money(p.balance, p.currency) },
      {
        head: 'Status',
        cell: (p: Plan) => `${status(p.status)}${show === 'overdue' ? ` ${status('overdue')}` : ''}`,
      },
      { head: 'Amount', numeric: true, cell: (p: Plan) => money(p.amount, p.currency) },
      { head: 'Paid', numeric: true, cell: (p: Plan) => money(p.amountPaid, p.currency) },
      { head: 'Due', cell: (p: Plan) => oneLine(day(p.dueDate)) },
    ],
    plans,
    show ? 'No plan matches.' : 'No plans yet.',
  );
  return sendPage(
    reply,
    visit,
    {
      title: 'Plans',
      section: 'plans',
      body: `${create}${filters}${of}${answer.ok ? '' : problemWith(answer.error, {})}${rows}
${answer.ok ? pager('/console/plans', { show, customer_id: customerId }, answer.data.next_cursor) : ''}`,
    },
    answer.ok ? 200 : answer.status,
  );
}

// ---------------------------------------------------------------------------------------------- a plan

interface PlanState {
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

async function planPage(reply: FastifyReply, visit: Visit, id: string, state: PlanState = {}) {
  const found = await visit.api.get<Plan>(`/tracks/${encodeURIComponent(id)}`);
  if (!found.ok) {
    if (found.status === 404) return notFoundPage(reply, visit);
    return sendPage(
      reply,
      visit,
      { title: 'Plan', section: 'plans', body: problemWith(found.error, {}) },
      found.status,
    );
  }
  const plan = found.data;
  const [schedules, obligations, overdue, payments, customer] = await Promise.all([
    visit.api.get<List<Schedule>>('/collection-schedules', { target_id: plan.id, limit: 100 }),
    visit.api.get<List<Obligation>>('/obligations', { track_id: plan.id, limit: 100, cursor: state.cursor }),
    visit.api.get<List<Obligation>>('/obligations', { track_id: plan.id, status: 'overdue', limit: 100 }),
    visit.api.get<List<Payment>>(`/tracks/${encodeURIComponent(plan.id)}/payments`, { limit: 10 }),
    namesOf(visit, 'customers', [plan.customerId]),
  ]);
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
  const obligationTable = table(
    'Obligations, earliest due first',
    [
      { head: 'Due', cell: (o: Obligation) => oneLine(day(o.due_date)) },
      { head: 'Status', cell: (o: Obligation) => status(o.status) },
      { head: 'Amount', numeric: true, cell: (o: Obligation) => money(o.amount, o.currency) },
      { head: 'Paid', numeric: true, cell: (o: Obligation) => money(o.amount_paid, o.currency) },
      { head: 'Still due', numeric: true, cell: (o: Obligation) => money(o.amount_due, o.currency) },
    ],
    obligationRows,
    'No obligations: add a collection schedule to spread the balance over due dates.',
  );
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
  const problems = [schedules, obligations, payments]
    .map((a) => (a.ok ? '' : problemWith(a.error, {})))
    .join('');
  const body = `${state.lead ?? ''}${notice(state.done, MESSAGES)}${state.problem && !state.lead ? problemWith(state.problem, SCHEDULE_LABELS) : ''}${problems}
${figures}
${facts}
<h2>Collection schedules</h2>
${cards || '<p class="note">No collection schedule.</p>'}
${addForm}
<h2>Obligations</h2>
${obligationTable}
${obligations.ok ? pager(planHref(plan.id), {}, obligations.data.next_cursor) : ''}
<h2>Payments</h2>
${paymentTable}`;
  return sendPage(reply, visit, { title: plan.title, section: 'plans', body }, state.status ?? 200);
}

// ---------------------------------------------------------------------------------------------- new plan

async function newPlanPage(
  reply: FastifyReply,
  visit: Visit,
  values: ConsoleForm,
  error: ApiError | null = null,
  code = 200,
) {
  const errors = fieldErrors(error);
  const customerId = trimmed(values.customer_id);
  let customerField: string;
  const fixed = customerId && values.customer_fixed === 'yes';
  const named = fixed ? await namesOf(visit, 'customers', [customerId]) : new Map<string, string>();
  if (fixed && named.has(customerId)) {
    customerField = `<p>Customer: ${link(customerHref(customerId), named.get(customerId), customerId)}${
      errors.customer_id ? ` <span class="field-error">${esc(errors.customer_id)}</span>` : ''
    }<input type="hidden" name="customer_id" value="${esc(customerId)}"><input type="hidden" name="customer_fixed" value="yes"></p>`;
  } else {
    const customers = await visit.api.get<List<{ id: string; name: string }>>('/customers', {
      status: 'active',
      limit: 100,
    });
    const list = customers.ok ? customers.data.items : [];
    customerField = field({
      label: 'Customer',
      name: 'customer_id',
      options: [
        { value: '', label: 'Choose a customer' },
        ...list.map((c) => ({ value: c.id, label: c.name })),
      ],
      value: customerId,
      required: true,
      ...(customers.ok && customers.data.has_more
        ? { hint: "The first 100 customers; for another, start the plan from the customer's page." }
        : {}),
      error: errors.customer_id ?? (fixed ? 'No such customer here: choose one.' : undefined),
    });
  }
  const currency = trimmed(values.currency) || visit.workspace.currency;
  const body = `${problemWith(error, PLAN_LABELS)}
${formStart(visit, '/console/plans', { label: 'New plan' })}
<fieldset class="group"><legend>The plan</legend>
${customerField}
${field({ label: 'Title', name: 'title', value: values.title, required: true, hint: 'What is being paid for, like "Fridge, 6 months".', error: errors.title, attributes: 'maxlength="200"' })}
${field({ label: 'Amount', name: 'amount', value: values.amount, required: true, hint: 'In the currency below, like 1,500.00.', error: errors.amount, attributes: 'inputmode="decimal" autocomplete="off"' })}
${field({ label: 'Currency', name: 'currency', value: currency, required: true, hint: `ISO code; ${visit.workspace.currency} unless you change it.`, error: errors.currency, attributes: 'maxlength="3" autocomplete="off"' })}
${field({ label: 'Final due date (optional)', name: 'due_date', type: 'date', value: values.due_date, error: errors.due_date })}
</fieldset>
<fieldset class="group"><legend>Collection schedule (optional)</legend>
${scheduleFields(visit, values, errors, { optional: true, currency })}
</fieldset>
<div class="actions"><button type="submit">Create plan</button><a class="button secondary" href="/console/plans">Cancel</a></div>
</form>`;
  return sendPage(reply, visit, { title: 'New plan', section: 'plans', body }, code);
}

async function createPlan(reply: FastifyReply, visit: Visit, form: ConsoleForm) {
  const errors: Record<string, string> = {};
  const customerId = trimmed(form.customer_id);
  if (!customerId) errors.customer_id = 'Choose a customer.';
  const title = trimmed(form.title);
  if (!title) errors.title = 'Enter a title.';
  const currency = (trimmed(form.currency) || visit.workspace.currency).toUpperCase();
  const currencyOk = isCurrency(currency);
  if (!currencyOk) errors.currency = 'Enter a currency code such as NGN or USD.';
  const amount = readAmount(form.amount, currencyOk ? currency : visit.workspace.currency);
  if (!amount.ok) errors.amount = amount.error;
  const dueText = trimmed(form.due_date);
  const dueDate = dueText ? readDate(dueText) : undefined;
  if (dueText && !dueDate) errors.due_date = 'Enter the final due date as a date, or leave it empty.';
  const schedule = readSchedule(visit, form, {
    currency: currencyOk ? currency : visit.workspace.currency,
    total: amount.ok ? amount.minor : undefined,
    installments: null,
    optional: true,
  });
  if (!schedule.ok) Object.assign(errors, schedule.errors);
  if (Object.keys(errors).length > 0 || !amount.ok || !schedule.ok)
    return newPlanPage(reply, visit, form, formError(errors), 422);

  const key = idempotencyKeyOf(form);
  const made = await visit.api.send<Plan>(
    'POST',
    '/tracks',
    {
      customerId,
      title,
      amount: amount.minor,
      currency,
      ...(schedule.installments ? { installments: schedule.installments } : {}),
      ...(dueDate ? { dueDate } : {}),
    },
    key,
  );
  if (!made.ok)
    return newPlanPage(reply, visit, form, renameFields(made.error, PLAN_FIELD_NAMES), made.status);
  const plan = made.data;
  if (schedule.none)
    return reply
      .code(303)
      .header('location', `${planHref(plan.id)}?done=created`)
      .send();

  const added = await visit.api.send<Schedule>(
    'POST',
    '/collection-schedules',
    { ...schedule.body, target_id: plan.id },
    key ? `${key}:schedule` : undefined,
  );
  if (added.ok)
    return reply
      .code(303)
      .header('location', `${planHref(plan.id)}?done=created_with_schedule`)
      .send();
  // The plan stays: the refusal of its schedule is shown on the plan's page, with the schedule as typed.
  const refused = renameFields(added.error, SCHEDULE_FIELD_NAMES);
  return planPage(reply, visit, plan.id, {
    status: added.status,
    problem: refused,
    lead: `<div class="problem" role="alert"><strong>The plan ${link(planHref(plan.id), plan.title, plan.id)} was created, but its collection schedule was refused: ${esc(
      added.error.message,
    )}</strong> Correct the schedule below and add it, or leave the plan without one.${
      Object.keys(fieldErrors(refused)).length > 0
        ? `<ul>${Object.entries(fieldErrors(refused))
            .map(([name, message]) => `<li>${esc(SCHEDULE_LABELS[name] ?? name)}: ${esc(message)}</li>`)
            .join('')}</ul>`
        : ''
    }</div>`,
    scheduleValues: form,
    scheduleErrors: fieldErrors(refused),
  });
}

// ---------------------------------------------------------------------------------------------- schedules

async function addSchedule(reply: FastifyReply, visit: Visit, id: string, form: ConsoleForm) {
  const found = await visit.api.get<Plan>(`/tracks/${encodeURIComponent(id)}`);
  if (!found.ok) return notFoundPage(reply, visit);
  const plan = found.data;
  const read = readSchedule(visit, form, {
    currency: plan.currency,
    total: plan.balance,
    installments: plan.installments,
    optional: false,
  });
  if (!read.ok || read.none)
    return planPage(reply, visit, id, {
      status: 422,
      problem: formError(read.ok ? {} : read.errors),
      scheduleValues: form,
      scheduleErrors: read.ok ? {} : read.errors,
    });
  const added = await visit.api.send<Schedule>(
    'POST',
    '/collection-schedules',
    { ...read.body, target_id: plan.id },
    idempotencyKeyOf(form),
  );
  if (added.ok)
    return reply
      .code(303)
      .header('location', `${planHref(id)}?done=schedule_added`)
      .send();
  const refused = renameFields(added.error, SCHEDULE_FIELD_NAMES);
  return planPage(reply, visit, id, {
    status: added.status,
    problem: refused,
    scheduleValues: form,
    scheduleErrors: fieldErrors(refused),
  });
}

interface Change {
  id: string | null;
  due_date: string;
  amount: number;
  previous_amount: number | null;
  status: string;
}
interface ActionResult extends Schedule {
  changes?: {
    dry_run: boolean;
    created: Change[];
    updated: Change[];
    cancelled: Change[];
    owed_after: number;
  };
}

/** What a dry run found, as a fingerprint: the confirmation applies only what the person saw. */
const fingerprint = (changes: ActionResult['changes']) =>
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
async function previewPage(
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

async function cancelPage(reply: FastifyReply, visit: Visit, plan: Plan, schedule: Schedule) {
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

async function actOnSchedule(
  reply: FastifyReply,
  visit: Visit,
  id: string,
  scheduleId: string,
  form: ConsoleForm,
) {
  const [found, got] = await Promise.all([
    visit.api.get<Plan>(`/tracks/${encodeURIComponent(id)}`),
    visit.api.get<Schedule>(`/collection-schedules/${encodeURIComponent(scheduleId)}`),
  ]);
  if (!found.ok || !got.ok || got.data.target_id !== id) return notFoundPage(reply, visit);
  const plan = found.data;
  const schedule = got.data;
  const action = ACTIONS.find((a) => a.action === form.action)?.action;
  if (!action)
    return planPage(reply, visit, id, {
      status: 422,
      problem: { code: 'validation_error', message: 'Choose one of the buttons of a schedule.' },
    });
  const path = `/collection-schedules/${encodeURIComponent(schedule.id)}`;
  const confirmed = form.confirmed === 'yes';
  const done = () =>
    reply
      .code(303)
      .header('location', `${planHref(id)}?done=${DONE_OF[action]}`)
      .send();
  const refused = (error: ApiError, code: number) =>
    planPage(reply, visit, id, { status: code, problem: error });

  if (action === 'cancel' && !confirmed) return cancelPage(reply, visit, plan, schedule);
  if (action === 'sync_payment_plan' || action === 'generate_obligations') {
    const preview = await visit.api.send<ActionResult>('PATCH', path, { action, dry_run: true });
    if (!preview.ok) return refused(preview.error, preview.status);
    if (!confirmed) return previewPage(reply, visit, plan, schedule, action, preview.data);
    if (fingerprint(preview.data.changes) !== form.preview)
      return previewPage(reply, visit, plan, schedule, action, preview.data, true);
  }
  const acted = await visit.api.send<ActionResult>('PATCH', path, { action });
  return acted.ok ? done() : refused(acted.error, acted.status);
}

// ---------------------------------------------------------------------------------------------- routes

export function plansPages(app: FastifyInstance, _ctx: AppContext) {
  app.get('/plans', { schema: { hide: true } }, async (request, reply) =>
    listPage(reply, visitIn(request), (request.query ?? {}) as Record<string, unknown>),
  );

  app.get('/plans/new', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('edit_records')) return refusedPage(reply, visit, EDIT_REFUSED);
    const customerId = one((request.query as Record<string, unknown>).customer_id);
    return newPlanPage(reply, visit, customerId ? { customer_id: customerId, customer_fixed: 'yes' } : {});
  });

  app.post<{ Body: ConsoleForm }>('/plans', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('edit_records')) return refusedPage(reply, visit, EDIT_REFUSED);
    return createPlan(reply, visit, request.body ?? {});
  });

  app.get<{ Params: { id: string } }>('/plans/:id', { schema: { hide: true } }, async (request, reply) => {
    const query = (request.query ?? {}) as Record<string, unknown>;
    return planPage(reply, visitIn(request), request.params.id, {
      done: one(query.done),
      cursor: one(query.cursor),
    });
  });

  app.post<{ Params: { id: string }; Body: ConsoleForm }>(
    '/plans/:id/schedules',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      if (!visit.can('edit_records'))
        return refusedPage(reply, visit, EDIT_REFUSED, planHref(request.params.id));
      return addSchedule(reply, visit, request.params.id, request.body ?? {});
    },
  );

  app.post<{ Params: { id: string; scheduleId: string }; Body: ConsoleForm }>(
    '/plans/:id/schedules/:scheduleId',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      const { id, scheduleId } = request.params;
      if (!visit.can('edit_records')) return refusedPage(reply, visit, EDIT_REFUSED, planHref(id));
      return actOnSchedule(reply, visit, id, scheduleId, request.body ?? {});
    },
  );
}
